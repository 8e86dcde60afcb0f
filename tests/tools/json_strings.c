/*
 * json_strings.c - test harness for the tool's string writers (built and
 * driven by tests/tools/test_strings): reads bytes on stdin and writes
 * them as a JSON string (kp_json_chars, tools/kprof/util/json.c) or, with
 * the argument "xml", as XML text (kp_xml_text, tools/kprof/pictures/
 * picture.c) on stdout.  With "json N" only the first N bytes count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/util/json.h"

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, stdin);

	buf[n] = 0;
	if (argc > 1 && !strcmp(argv[1], "xml"))
		kp_xml_text(stdout, buf);
	else
		kp_json_chars(stdout, buf, argc > 2 ? strtoul(argv[2], NULL, 10) : n);
	return fflush(stdout) ? 1 : 0;
}
