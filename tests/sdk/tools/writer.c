/* tests/sdk/tools/writer.c: the result writer, its escaping, number forms
 * and every misuse it must refuse; {"case": NAME} picks the scenario. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *c = tg_arg_str(a, "case", "");
	double zero = tg_arg_num(a, "zero", 0.0);
	int k;

	if (!strcmp(c, "escapes")) {
		static const char s[] = "q\" b\\ / \n\r\t\b\f \x01\x1f\x7f \xc3\xa9 \xf0\x9f\x98\x80 \0end";
		tg_out_strn(s, sizeof(s) - 1);
	} else if (!strcmp(c, "numbers")) {
		tg_out_array_begin();
		tg_out_num(0.1);
		tg_out_num(2.0);
		tg_out_num(-0.0);
		tg_out_num(1e300);
		tg_out_num(1.0 / 3.0);
		tg_out_num(123456789.0);
		tg_out_num(5e-324);
		tg_out_int(-9223372036854775807LL - 1);
		tg_out_int(42);
		tg_out_end();
	} else if (!strcmp(c, "nested")) {
		tg_out_object_begin();
		tg_out_key("a");
		tg_out_array_begin();
		tg_out_object_begin();
		tg_out_object_end();
		tg_out_array_begin();
		tg_out_array_end();
		tg_out_null();
		tg_out_array_end();
		tg_out_key_str("s", NULL);
		tg_out_key("o");
		tg_out_object_begin();
		tg_out_key_bool("t", true);
		/* left open: tg_out_end closes it and the outer object */
	} else if (!strcmp(c, "nan")) {
		tg_out_num(zero / zero);
	} else if (!strcmp(c, "inf")) {
		tg_out_object_begin();
		tg_out_key_num("x", 1.0 / zero);
	} else if (!strcmp(c, "two_values")) {
		tg_out_int(1);
		tg_out_int(2);
	} else if (!strcmp(c, "value_without_key")) {
		tg_out_object_begin();
		tg_out_int(1);
	} else if (!strcmp(c, "key_in_array")) {
		tg_out_array_begin();
		tg_out_key("k");
	} else if (!strcmp(c, "key_twice")) {
		tg_out_object_begin();
		tg_out_key("k");
		tg_out_key("l");
	} else if (!strcmp(c, "dangling_key")) {
		tg_out_object_begin();
		tg_out_key("k");
	} else if (!strcmp(c, "wrong_end")) {
		tg_out_object_begin();
		tg_out_array_end();
	} else if (!strcmp(c, "end_at_top")) {
		tg_out_object_end();
	} else if (!strcmp(c, "bad_utf8")) {
		tg_out_str("ok \xc3\x28");
	} else if (!strcmp(c, "bad_utf8_key")) {
		tg_out_object_begin();
		tg_out_key("\xed\xa0\x80");
	} else if (!strcmp(c, "too_deep")) {
		for (k = 0; k < 65; k++)
			tg_out_array_begin();
	} else if (!strcmp(c, "deep_ok")) {
		for (k = 0; k < 64; k++)
			tg_out_array_begin();
	} else if (!strcmp(c, "content")) {
		static const unsigned char b[6] = { 0xfb, 0xff, 0x00, 'a', 'b', 'c' };
		tg_out_content_begin();
		tg_out_content_text("t\n");
		tg_out_content_image("image/png", b, 6);
		tg_out_content_audio("audio/ogg", b, 1);
		tg_out_content_resource_text("n://x", "text/plain", "r");
		tg_out_content_resource_blob("n://y", "image/gif", b, 5);
		tg_out_content_end();
		tg_out_key_int("n", 1);
	} else if (!strcmp(c, "content_unopened")) {
		tg_out_content_image("image/png", "x", 1);
	} else if (!strcmp(c, "content_nested")) {
		tg_out_array_begin();
		tg_out_content_begin();
	} else if (!strcmp(c, "content_in_block")) {
		tg_out_content_begin();
		tg_out_object_begin();
		tg_out_content_text("x");
	} else if (!strcmp(c, "content_end_twice")) {
		tg_out_content_begin();
		tg_out_content_end();
		tg_out_content_end();
	} else if (!strcmp(c, "nothing")) {
		/* tg_out_end alone */
	} else if (!strcmp(c, "fail")) {
		tg_tool_fail("custom failure %d/%s", 7, "x");
	} else {
		tg_tool_fail("unknown case");
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
