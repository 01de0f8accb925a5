#include "util/jsonc.h"

#include <stdbool.h>
#include <string.h>

/* Comments to spaces (newlines kept), then commas that close nothing. */
void jsonc_blank(char *s, size_t n)
{
	bool str = false;
	for (size_t i = 0; i < n; i++) {
		if (str) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == '"')
				str = false;
			continue;
		}
		if (s[i] == '"') {
			str = true;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				s[i++] = ' ';
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			s[i] = s[i + 1] = ' ';
			for (i += 2; i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'); i++)
				if (s[i] != '\n')
					s[i] = ' ';
			if (i < n)
				s[i] = s[i + 1] = ' ', i++;
		}
	}
	str = false;
	for (size_t i = 0; i < n; i++) {
		if (str) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == '"')
				str = false;
			continue;
		}
		if (s[i] == '"') {
			str = true;
		} else if (s[i] == ',') {
			size_t j = i + 1;
			while (j < n && s[j] && strchr(" \t\r\n", s[j]))
				j++;
			if (j < n && (s[j] == '}' || s[j] == ']'))
				s[i] = ' ';
		}
	}
}
