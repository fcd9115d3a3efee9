/* SPDX-License-Identifier: GPL-2.0 */
/* Arrays that grow: one way of growing them. */
#ifndef XF_VEC_H
#define XF_VEC_H

#include <stddef.h>

/* A new zeroed element at the end of *arr, which holds *n of size sz in
 * room for *cap (doubled when full): a pointer to it, or NULL (ENOMEM;
 * *arr unchanged). */
void *xf_vec_push(void *arr, int *n, int *cap, size_t sz);

#endif
