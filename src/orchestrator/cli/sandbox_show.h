/* sandbox_show.h - `vx sandbox show`. */
#ifndef VX_CLI_SANDBOX_SHOW_H
#define VX_CLI_SANDBOX_SHOW_H

struct opt;

/* vx sandbox show's options, as its rows set them. */
enum show_platform { SHOW_LINUX, SHOW_DARWIN };

struct sandbox_show_opts {
	enum show_platform platform; /* --platform, SHOW_LINUX when not given */
};

/* Returns the rows of vx sandbox show's options, bound to o's fields,
 * malloc'd: the table its parser reads and `vx completion` completes
 * from. */
struct opt *sandbox_show_rows(struct sandbox_show_opts *o);

/* `vx sandbox show TASK [--platform linux|darwin]` (argv[0] is "show"):
 * prints the exact argv of each selected project's TASK, one element per
 * line. Returns the exit status. */
int sandbox_show_main(int argc, char **argv);

#endif
