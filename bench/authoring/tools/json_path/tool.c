#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *v = tg_arg_object(a, "doc");
	const char *path = tg_arg_str(a, "path", "");
	char key[128];

	while (v && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			tg_tool_fail("path segment too long");
		memcpy(key, path, n);
		key[n] = '\0';
		if (tg_value_type(v) == TG_ARRAY) {
			char *end;
			long i = strtol(key, &end, 10);
			v = (*end || i < 0) ? NULL : tg_value_at(v, (size_t)i);
		} else {
			v = tg_value_get(v, key);
		}
		path += n + (path[n] == '.');
	}
	tg_out_object_begin();
	tg_out_key_bool("found", v != NULL);
	tg_out_key_value("value", v);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
