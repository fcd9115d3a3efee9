// SPDX-License-Identifier: GPL-2.0
/* Arrays that grow. */
#include <stdlib.h>
#include <string.h>

#include "vec.h"

void *xf_vec_push(void *arr, int *n, int *cap, size_t sz)
{
	char **a = arr, *v;

	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 16;

		v = realloc(*a, c * sz);
		if (!v)
			return NULL;
		*a = v;
		*cap = c;
	}
	v = *a + (*n)++ * sz;
	memset(v, 0, sz);
	return v;
}
