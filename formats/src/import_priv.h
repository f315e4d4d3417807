/* SPDX-License-Identifier: MIT */
/* Private to gs_import: helpers shared by detect.c, kineto.c and load.c. */
#ifndef GS_IMPORT_PRIV_H
#define GS_IMPORT_PRIV_H

#include <gpuscope/import.h>

/*
 * gs_detect_format, and when the result is GS_INPUT_UNKNOWN a short reason
 * for the user in *why ("empty file", "gzip data that is not JSON", ...).
 * Appends no error cause unless it returns an error.
 */
gs_status gs_detect_format_why(const char *path, enum gs_input_format *fmt, const char **why);

#endif
