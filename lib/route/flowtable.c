// SPDX-License-Identifier: GPL-2.0
/* lookup flowtable: whether this kernel can run route_flow.bpf.c (the
 * kfunc bpf_xdp_flow_lookup() of nf_flow_table), and the refusal where it
 * cannot. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"
#include "kbtf.h"
#include "probe.h"
#include "route/route.h"
#include "route_flow.skel.h"
#include "xbpf.h"

#define FT_KFUNC "bpf_xdp_flow_lookup"

/* 1 when the kernel's configuration (/proc/config.gz) says that NAME is
 * not set, 0 when it is set or cannot be read. */
static int kconfig_unset(const char *name)
{
	char line[256], want[128];
	int unset = 0;
	gzFile f;

	f = gzopen("/proc/config.gz", "rb");
	if (!f)
		return 0;
	snprintf(want, sizeof(want), "# CONFIG_%s is not set", name);
	while (gzgets(f, line, sizeof(line))) {
		if (!strncmp(line, want, strlen(want)) && (line[strlen(want)] == '\n' ||
							    !line[strlen(want)])) {
			unset = 1;
			break;
		}
	}
	gzclose(f);
	return unset;
}

/* Whether nf_flow_table.ko is among the modules installed for this kernel. */
static bool ft_module_installed(void)
{
	char path[256], line[512];
	struct utsname u;
	bool found = false;
	FILE *f;

	if (uname(&u))
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/nf_flow_table.ko") && strchr(line, ':') &&
			strstr(line, "/nf_flow_table.ko") < strchr(line, ':');
	fclose(f);
	return found;
}

int xf_route_probe_flowtable(struct xf_probe *p)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct route_flow_bpf *skel;
	char kconfig[32];
	int err;

	if (!xf_kernel_has_func(FT_KFUNC, "nf_flow_table")) {
		if (!access("/sys/module/nf_flow_table", F_OK))
			xf_probe_set(p, false, 0, "nf_flow_table has no " FT_KFUNC "() kfunc "
				  "(Linux 6.9)");
		else if (kconfig_unset("NF_FLOW_TABLE"))
			xf_probe_set(p, false, 0, "kernel built without NF_FLOW_TABLE: no "
				  FT_KFUNC "() kfunc");
		else if (ft_module_installed())
			xf_probe_set(p, false, 0, "module nf_flow_table is not loaded (an "
				  "nftables flowtable loads it)");
		else
			xf_probe_set(p, false, 0, "no nf_flow_table in this kernel: no "
				  FT_KFUNC "() kfunc");
		return 0;
	}
	oo.kconfig = xf_bpf_kconfig(kconfig, sizeof(kconfig));
	skel = route_flow_bpf__open_opts(&oo);
	if (!skel) {
		err = -errno;
		xf_probe_set(p, false, err, "cannot open the flowtable program");
		return err;
	}
	err = route_flow_bpf__load(skel);
	route_flow_bpf__destroy(skel);
	if (err) {
		xf_probe_set(p, false, err, FT_KFUNC "() is there, the flowtable program "
			  "does not load");
		return 0;
	}
	xf_probe_set(p, true, 0, FT_KFUNC "() available to XDP programs");
	return 0;
}

int rt_check_flowtable(void)
{
	struct xf_probe p;

	xf_route_probe_flowtable(&p);
	if (p.yes)
		return 0;
	fprintf(stderr, "Error: lookup flowtable needs bpf_xdp_flow_lookup(), which this "
		"kernel cannot give: %s.\n", p.why);
	return -EOPNOTSUPP;
}
