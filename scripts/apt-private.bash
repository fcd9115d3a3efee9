# SPDX-License-Identifier: GPL-2.0
# A private apt for one Debian suite, to be sourced: test/vm/fetch-kernel
# (kernels for the guests) and scripts/fetch-peer (the benchmark's peer)
# download packages with it, extract them with dpkg-deb -x and never
# install anything on the host.
#
# apt_private SUITE DIR: sources, lists, cache and an empty dpkg status
# under DIR; the one source entry is derived from the machine's own Debian
# entry (same URIs, same keyring), so no host name is written into the
# project. Fills the array APT_OPTS with the options every apt-get and
# apt-cache call must take, then updates the lists (with XF_APT_OFFLINE=1
# in the environment it keeps the lists an earlier update left, and needs
# no network). Returns non-zero, with "Error: ..." on stderr, when there is
# no Debian entry to derive from, the update fails, or XF_APT_OFFLINE finds
# no lists.
apt_private() {
	local suite=$1 dir=$2 entry uris keyring
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/sources.d"
	: >"$dir/status"

	# The machine's main Debian entry: first deb822 stanza with a main
	# component whose URIs end in /debian, else the first one-line "deb"
	# entry.
	entry=$(awk 'BEGIN { RS = ""; FS = "\n" }
		{
			u = ""; k = ""; c = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) u = substr($i, 6)
				if ($i ~ /^Signed-By:/) k = substr($i, 11)
				if ($i ~ /^Components:/) c = substr($i, 12)
			}
			gsub(/^ +| +$/, "", u); gsub(/^ +| +$/, "", k)
			if (u ~ /\/debian\/?$/ && c ~ /main/) { print u "|" k; exit }
		}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [[ -z $entry && -f /etc/apt/sources.list ]]; then
		entry=$(awk '$1 == "deb" { sub(/\[[^]]*\] */, ""); print $2 "|"; exit }' \
			/etc/apt/sources.list)
	fi
	if [[ -z $entry ]]; then
		echo "Error: no Debian entry in the apt sources to derive $suite from" >&2
		return 1
	fi
	uris=${entry%%|*}
	keyring=${entry#*|}
	{
		echo "Types: deb"
		echo "URIs: $uris"
		echo "Suites: $suite"
		echo "Components: main"
		[[ -z $keyring ]] || echo "Signed-By: $keyring"
	} >"$dir/sources.d/xfwd.sources.tmp"
	rm -f "$dir/sources.d/"*.sources
	mv "$dir/sources.d/xfwd.sources.tmp" "$dir/sources.d/xfwd.sources"

	APT_OPTS=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$dir/sources.d"
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir"
		-o "Dir::Cache::archives=$dir/archives" -o "Dir::State::status=$dir/status"
		-o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$dir/sources.d"
		-o "APT::Architecture=amd64" -o "Acquire::Languages=none"
		-o "APT::Sandbox::User=root" -q)
	if [[ ${XF_APT_OFFLINE:-} == 1 ]]; then
		compgen -G "$dir/lists/*_Packages*" >/dev/null && return 0
		echo "Error: XF_APT_OFFLINE=1 but no apt lists of $suite in $dir/lists" >&2
		return 1
	fi
	if ! apt-get "${APT_OPTS[@]}" update >/dev/null; then
		echo "Error: apt-get update of $suite failed" >&2
		return 1
	fi
}
