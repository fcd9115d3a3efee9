/* SPDX-License-Identifier: GPL-2.0 */
/* Hooks: where an instance's program runs on an interface (an XDP chain
 * member or tc), and the link that keeps it there, pinned in the
 * interface's directory under the object's name. route and redirect
 * attach through here; the XDP chain itself is the chain wing's. */
#ifndef XF_HOOK_H
#define XF_HOOK_H

#include <stdbool.h>

/* AUTO: the object picks (route picks by driver; redirect takes tc). */
enum xf_hook { XF_HOOK_AUTO, XF_HOOK_XDP, XF_HOOK_TC };

/* "auto", "xdp", "tc". */
const char *xf_hook_name(enum xf_hook h);

/* Attach prog_fd to dev (ifindex) by a tcx link on ingress (else egress)
 * and pin the link as pin in the interface's directory: the program stays
 * attached while the pin does. Prints its own Error. 0/-errno. */
int xf_hook_tcx(int prog_fd, int ifindex, const char *dev, bool ingress, const char *pin);
/* Pin link_fd (a chain's link, or one made otherwise) as pin in the
 * interface's directory, and close it. Prints its own Error. 0/-errno. */
int xf_hook_pin(int link_fd, int ifindex, const char *dev, const char *pin);
/* Undo either: unpin (the kernel detaches a link whose last holder goes,
 * from a work queue when that was the pin: moments later) and remove the
 * directories left empty. 0/-errno. */
int xf_hook_unpin(int ifindex, const char *pin);

#endif
