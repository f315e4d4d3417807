/* SPDX-License-Identifier: MIT */
/*
 * C++ kernel names demangled with __cxa_demangle from a C++ runtime the
 * program has already loaded (libstdc++ or libc++abi: a CUDA C++ program
 * links one). The collector is C and never loads one itself, so injecting
 * it into a C program adds no dependency: there names stay mangled.
 * Called on the writer thread only (never on the program's threads).
 */
#ifndef GS_COLLECTOR_DEMANGLE_H
#define GS_COLLECTOR_DEMANGLE_H

/* The demangled form of `mangled` (malloc'd: the caller frees it), or NULL
 * (not a C++ name, no C++ runtime in the process, or not demangleable). */
char *gs_demangle(const char *mangled);

#endif
