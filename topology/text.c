/*
 * DOC: text from the network
 *
 * Any host chooses its NodeDescription and the ServiceNames it registers.
 * Printed raw, such a name could move the cursor, recolour or clear an
 * operator's terminal, forge extra log lines with a newline, or make a
 * --json answer invalid UTF-8. text_clean() keeps what a name may fairly
 * hold (printable ASCII, and valid UTF-8 for other scripts) and turns the
 * rest into '?', one per byte. Names are cleaned where they enter the
 * model (fabric_add_node, discovery) and where they are logged.
 */
#include "topology/text.h"

#include <stdbool.h>
#include <stdint.h>

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t text_utf8_char(const unsigned char *s, size_t n)
{
	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!continuation(s[i]))
			return 0;
	uint32_t cp = len == 2 ? (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu)
		      : len == 3 ? (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu)
		      : (s[0] & 0x07u) << 18 | (s[1] & 0x3fu) << 12 | (s[2] & 0x3fu) << 6 | (s[3] & 0x3fu);
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF, and the C1 controls are not text */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

size_t text_clean(char *dst, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = 0, replaced = 0;
	while (len < n && s[len])
		len++;
	for (size_t i = 0; i < len;) {
		size_t c = s[i] < 0x20 || s[i] == 0x7f ? 0 : text_utf8_char(s + i, len - i);
		if (!c) {
			dst[i++] = '?';
			replaced++;
			continue;
		}
		for (size_t k = 0; k < c; k++, i++)
			dst[i] = (char)s[i];
	}
	dst[len] = '\0';
	return replaced;
}
