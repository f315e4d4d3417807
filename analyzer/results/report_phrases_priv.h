/* SPDX-License-Identifier: MIT */
/*
 * Internal: the report's phrases are public now (gpuscope/report_phrases.h);
 * this name stays only for the includes not yet moved to it.
 */
#ifndef GS_ANALYZER_REPORT_PHRASES_PRIV_H
#define GS_ANALYZER_REPORT_PHRASES_PRIV_H

#include <gpuscope/report_phrases.h>

#endif /* GS_ANALYZER_REPORT_PHRASES_PRIV_H */
