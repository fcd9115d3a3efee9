// SPDX-License-Identifier: GPL-2.0
/* Checks of a BPF object's ELF that libbpf does not make before trusting it.
 *
 * libbpf 1.4 takes a symbol's value and size as an offset and a length
 * into the symbol's section, and checks only that their sum is within the
 * section: a hostile object overflows the sum (value 2^64 - 256, size 392
 * pass) and libbpf copies the program from before the section's data, out
 * of bounds (found by test/fuzz/elf.bats under ASan). So before libbpf
 * sees an object, every defined symbol must lie inside its section.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "elf_check.h"

static int symbols_inside(Elf *elf, char *msg, size_t len)
{
	Elf_Scn *scn = NULL, *in;
	GElf_Shdr sh, ish;
	GElf_Sym sym;
	Elf_Data *d;
	size_t shnum, i, n;
	const char *name;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrnum(elf, &shnum))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		/* By the symbol's size, as libbpf counts, not by sh_entsize:
		 * a bad sh_entsize must not hide the symbols. */
		n = d->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		for (i = 1; i < n; i++) {
			/* A symbol libelf cannot read (the table's flags make its
			 * data raw bytes, say) is not thereby inside: libbpf reads
			 * it all the same. */
			if (!gelf_getsym(d, i, &sym)) {
				snprintf(msg, len, "symbol %zu cannot be read", i);
				return -LIBBPF_ERRNO__FORMAT;
			}
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			in = sym.st_shndx < shnum ? elf_getscn(elf, sym.st_shndx) : NULL;
			if (in && gelf_getshdr(in, &ish) && sym.st_value <= ish.sh_size &&
			    sym.st_size <= ish.sh_size - sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			snprintf(msg, len, "symbol %zu (%s) lies outside its section", i,
				 name && *name ? name : "?");
			return -LIBBPF_ERRNO__FORMAT;
		}
	}
	return 0;
}

int xf_elf_check_file(const char *path, char *msg, size_t len)
{
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	err = elf ? symbols_inside(elf, msg, len) : 0;
	elf_end(elf);
	close(fd);
	return err;
}

int xf_elf_check_mem(const void *buf, size_t size, char *msg, size_t len)
{
	char *copy;
	Elf *elf;
	int err;

	/* libelf may convert a foreign byte order in place: a copy. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	err = elf ? symbols_inside(elf, msg, len) : 0;
	elf_end(elf);
	free(copy);
	return err;
}
