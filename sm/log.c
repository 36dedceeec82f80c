/*
 * DOC: log
 *
 * A line-buffered log to stderr or a file: "2026-12-02T12:00:00.123 info msg".
 */
#include "sm/log.h"

#include <stdarg.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static enum log_level current = LOG_INFO;
static FILE *sink;

static const char *names[] = { "error", "warn", "info", "debug" };

void log_set_level(enum log_level level)
{
	current = level;
}

int log_set_file(const char *path)
{
	FILE *f = fopen(path, "a");
	if (!f)
		return -1;
	setvbuf(f, NULL, _IOLBF, 0);
	if (sink)
		fclose(sink);
	sink = f;
	return 0;
}

int log_level_parse(const char *text)
{
	for (int i = 0; i <= LOG_DEBUG; i++)
		if (strcmp(text, names[i]) == 0)
			return i;
	return -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > current)
		return;
	FILE *out = sink ? sink : stderr;
	struct timeval tv;
	struct tm tm;
	char stamp[32];
	va_list ap;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "%s.%03ld %s ", stamp, (long)(tv.tv_usec / 1000), names[level]);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}
