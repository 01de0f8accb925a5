/* libFuzzer target: Seatbelt's denial records (seatbelt_log.h), each line
 * of the input, must parse or be refused without crashing, leaking or
 * reading out of bounds, and a record must map to an event or to none. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "violations/seatbelt_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		struct seatbelt_record r;
		if (seatbelt_log_line(s, n, &r) == 1) {
			struct access_event ev;
			if (seatbelt_record_event(&r, &ev))
				free(ev.path);
			seatbelt_record_release(&r);
		}
		s += n + (nl != NULL);
	}
	return 0;
}
