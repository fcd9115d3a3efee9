/* SPDX-License-Identifier: GPL-2.0 */
/* The Internet checksum (RFC 1071) over byte buffers, for packets built
 * in userspace (route get, the generator). */
#ifndef XF_CSUM_H
#define XF_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Add len bytes at p, as big-endian 16-bit words, to the running sum. */
static inline uint32_t xf_csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (b[i] << 8) | b[i + 1];
	if (len & 1)
		sum += b[len - 1] << 8;
	return sum;
}

/* Fold the carries and complement: the value to store in the header. */
static inline uint16_t xf_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

#endif
