/*
 * Names from the network (topology/text.c): printable ASCII and valid
 * UTF-8 stay; control characters, DEL, stray bytes, overlong forms,
 * surrogates and C1 controls become '?'; a model node's name is clean
 * whatever it was given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "topology/fabric.h"
#include "topology/text.h"

static void clean(const char *in, const char *want, size_t replaced)
{
	char out[128];
	assert_int_equal(text_clean(out, in, strlen(in)), replaced);
	assert_string_equal(out, want);
}

static void keeps_text_and_replaces_the_rest(void **state)
{
	(void)state;
	clean("gpu-node-17 HCA-1", "gpu-node-17 HCA-1", 0);
	static const char utf8[] = "n\xc5\x93ud \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80";	/* 2-, 3- and 4-byte */
	clean(utf8, utf8, 0);
	clean("red\x1b[31mALERT\x1b[0m", "red?[31mALERT?[0m", 2);	/* a terminal escape */
	clean("a\nfabricd: forged line\r", "a?fabricd: forged line?", 2);
	clean("del\x7f", "del?", 1);
	clean("\xff\xfe", "??", 2);				/* not UTF-8 at all */
	clean("\xc0\xaf", "??", 2);				/* overlong '/' */
	clean("\xed\xa0\x80", "???", 3);			/* a UTF-16 surrogate */
	clean("\xc2\x9b" "2J", "??2J", 2);			/* C1 CSI: clears a screen too */
	clean("cut \xe6\x97", "cut ??", 2);			/* a character cut short */
	clean("\xf4\x90\x80\x80", "????", 4);			/* beyond U+10FFFF */
}

static void stops_at_nul_and_at_n(void **state)
{
	(void)state;
	char out[8];
	assert_int_equal(text_clean(out, "abc\0def", 7), 0);
	assert_string_equal(out, "abc");
	assert_int_equal(text_clean(out, "abcdefgh", 4), 0);
	assert_string_equal(out, "abcd");
}

static void nodes_are_named_cleanly(void **state)
{
	(void)state;
	struct fabric f;
	fabric_init(&f);
	struct node *n = fabric_add_node(&f, NODE_CA, 1, 1, "host\x1b]0;pwned\x07");
	assert_non_null(n);
	assert_string_equal(n->desc, "host?]0;pwned?");
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_text_and_replaces_the_rest),
		cmocka_unit_test(stops_at_nul_and_at_n),
		cmocka_unit_test(nodes_are_named_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
