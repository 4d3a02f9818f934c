/* SPDX-License-Identifier: MIT */
/*
 * shell.h - a command line on the serial port and the keyboard.
 *
 * After the boot's work, kernel_main() calls lab_shell() (lab/lab.c),
 * which hands over to shell_run() (shell=on, no exit=on). Input is polled
 * from COM1 and the i8042 every few milliseconds; output goes to every
 * console. Line editing: backspace, Ctrl-U (erase the line), Ctrl-C
 * (abandon it), up and down for the last SHELL_HISTORY lines. Commands:
 * `help` lists them; bad input gets a usage line, never a fault.
 */
#ifndef SHELL_H
#define SHELL_H

#include "types.h"

#define SHELL_LINE_MAX 128
#define SHELL_HISTORY  16
#define SHELL_ARGS_MAX 8

void shell_run(void);           /* does not return */
bool shell_enabled(void);       /* shell=on (the default) */

/*
 * One command line, as if typed (for tests); returns false for an unknown
 * or bad command, and for a line of SHELL_LINE_MAX characters or more,
 * which is not run (the shell says so; it never runs a line cut short).
 */
bool shell_execute(const char *line);

#endif
