/* Unit tests for sandbox/probe.c's words: the install command a missing
 * tool's line names, for the system /etc/os-release says this is (issue 55
 * item 5: one clear line, the command that installs it, wherever vx runs). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sandbox/probe.h"

static void expect(const char *os_release, const char *want)
{
	char *got = probe_install_command(os_release, "bubblewrap");
	CHECK_STR(got, want);
	free(got);
}

int main(void)
{
	expect("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
	       "VERSION_ID=\"12\"\nID=debian\n",
	       "apt-get install bubblewrap");
	expect("NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\nID_LIKE=debian\n",
	       "apt-get install bubblewrap");
	/* a derivative, by its ID_LIKE (Linux Mint, Pop!_OS) */
	expect("NAME=\"Linux Mint\"\nID=linuxmint\nID_LIKE=\"ubuntu debian\"\n",
	       "apt-get install bubblewrap");
	expect("NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=40\n", "dnf install bubblewrap");
	expect("NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n",
	       "dnf install bubblewrap");
	expect("NAME=\"Arch Linux\"\nID=arch\n", "pacman -S bubblewrap");
	expect("NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.0\n", "apk add bubblewrap");
	/* ID_LIKE's words are words: "debianish" is not debian */
	const char *all = "Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
			  "bubblewrap; Arch: pacman -S bubblewrap; Alpine: apk add bubblewrap";
	expect("ID=gentoo\nID_LIKE=debianish\n", all);
	/* a key that only begins like ID is not ID */
	expect("IDX=debian\nVERSION_ID=debian\n", all);
	expect("NAME=NixOS\nID=nixos\n", all);
	expect(NULL, all);
	expect("", all);

	char *line = probe_missing("strace", "strace");
	CHECK(!strncmp(line, "strace is not installed (", 25));
	CHECK(strstr(line, "install strace") || strstr(line, "add strace") ||
	      strstr(line, "-S strace"));
	free(line);
	return check_finish("sandbox probe");
}
