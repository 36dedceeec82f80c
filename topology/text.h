/*
 * text.h - names that come from the network (NodeDescriptions,
 * ServiceNames) made safe to print, log and put in JSON.
 */
#ifndef TOPOLOGY_TEXT_H
#define TOPOLOGY_TEXT_H

#include <stddef.h>

/* The length (1-4) of the valid UTF-8 character at s (n bytes left), or 0 if s starts none. */
size_t text_utf8_char(const unsigned char *s, size_t n);
/*
 * Copies at most n bytes of src (up to its first NUL) into dst, which has
 * room for n + 1, as printable text: control characters, DEL and bytes
 * that are not valid UTF-8 become '?'. Valid UTF-8 (any language) stays.
 * Returns how many bytes it replaced.
 */
size_t text_clean(char *dst, const char *src, size_t n);

#endif
