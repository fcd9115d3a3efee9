# SPDX-License-Identifier: GPL-2.0
# Other kernels under qemu (make check-kernels): see test/vm/.
