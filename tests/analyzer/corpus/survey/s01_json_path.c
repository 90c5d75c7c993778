// expect: pass
/* survey: JSON path extraction with the SDK */
#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *v = tg_arg_object(a, "doc");
	const char *path = tg_arg_str(a, "path", "");
	char key[64];
	while (v && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			tg_tool_fail("key too long");
		memcpy(key, path, n);
		key[n] = 0;
		v = tg_value_get(v, key);
		path += n + (path[n] == '.');
	}
	tg_out_object_begin();
	tg_out_key_value("value", v);
	tg_out_end();
	return 0;
}
