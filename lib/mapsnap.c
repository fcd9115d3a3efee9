// SPDX-License-Identifier: GPL-2.0
/* A map's entries saved and written back: see mapsnap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "mapsnap.h"

static bool snap_is_hash(uint32_t type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_LRU_HASH;
}

int xf_map_snap_take(int fd, struct xf_map_snap *s)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	struct bpf_map_info info;
	uint32_t len = sizeof(info), count, token;
	int err;

	memset(s, 0, sizeof(*s));
	memset(&info, 0, sizeof(info));
	if (bpf_map_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (!snap_is_hash(info.type) && info.type != BPF_MAP_TYPE_ARRAY)
		return -EOPNOTSUPP;
	s->fd = fd;
	s->hash = snap_is_hash(info.type);
	s->ksz = info.key_size;
	s->vsz = info.value_size;
	s->keys = calloc(info.max_entries ?: 1, s->ksz);
	s->vals = calloc(info.max_entries ?: 1, s->vsz);
	if (!s->keys || !s->vals) {
		err = -ENOMEM;
		goto err;
	}
	/* One call: the whole map fits in one batch, which ends with
	 * ENOENT when it reached the last entry. */
	count = info.max_entries;
	if (bpf_map_lookup_batch(fd, NULL, &token, s->keys, s->vals, &count, &o) &&
	    errno != ENOENT) {
		err = -errno;
		goto err;
	}
	s->n = count;
	return 0;
err:
	xf_map_snap_free(s);
	return err;
}

static bool snap_has(const struct xf_map_snap *s, const void *key)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (!memcmp((const char *)s->keys + (size_t)i * s->ksz, key, s->ksz))
			return true;
	return false;
}

/* A hash's keys that s does not have, deleted. */
static int snap_prune(const struct xf_map_snap *s)
{
	char *k = calloc(2, s->ksz ?: 1), *next;
	int err = 0;

	if (!k)
		return -ENOMEM;
	next = k + s->ksz;
	/* Deleting the key walked from would restart the walk: after each
	 * deletion it starts again from the first key. */
	while (!err && !bpf_map_get_next_key(s->fd, NULL, next)) {
		while (snap_has(s, next)) {
			memcpy(k, next, s->ksz);
			if (bpf_map_get_next_key(s->fd, k, next))
				goto out;
		}
		if (bpf_map_delete_elem(s->fd, next) && errno != ENOENT)
			err = -errno;
	}
out:
	free(k);
	return err;
}

int xf_map_snap_put(const struct xf_map_snap *s)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	uint32_t count = s->n;
	int err = s->hash ? snap_prune(s) : 0;

	if (s->n && bpf_map_update_batch(s->fd, s->keys, s->vals, &count, &o) && !err)
		err = -errno;
	return err;
}

void xf_map_snap_free(struct xf_map_snap *s)
{
	free(s->keys);
	free(s->vals);
	s->keys = s->vals = NULL;
	s->n = 0;
}
