/* SPDX-License-Identifier: MIT */
/*
 * errno.h - error numbers, Linux's values: functions return 0 or -ENAME.
 */
#ifndef ERRNO_H
#define ERRNO_H

#define ENOENT  2
#define EIO     5
#define EBADF   9
#define EAGAIN  11
#define ENOMEM  12
#define EFAULT  14
#define ENODEV  19
#define EINVAL  22
#define ENFILE  23
#define EMFILE  24
#define ENOSPC  28
#define ERANGE  34
#define ENAMETOOLONG 36
#define ENOSYS  38
#define ETIMEDOUT 110

#endif
