/* check.h - the unit tests' assert macros. Each failed check prints its place
 * and the two values; main() returns check_finish() so ctest sees failures. */
#ifndef VX_TEST_CHECK_H
#define VX_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		check_count++;                                                                     \
		if (!(cond)) {                                                                     \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		check_count++;                                                                     \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                                \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s == %s\n  got:  \"%s\"\n  want: \"%s\"\n",       \
				__FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)",                    \
				b_ ? b_ : "(null)");                                               \
		}                                                                                  \
	} while (0)

#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		check_count++;                                                                     \
		if (a_ != b_) {                                                                    \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s == %s\n  got:  %lld\n  want: %lld\n", __FILE__, \
				__LINE__, #a, #b, a_, b_);                                         \
		}                                                                                  \
	} while (0)

static inline int check_finish(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
