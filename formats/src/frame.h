/* SPDX-License-Identifier: MIT */
/* Private: .gscope framing shared by the writer and the reader. */
#ifndef GS_FORMAT_FRAME_H
#define GS_FORMAT_FRAME_H

#include <stdint.h>
#include <string.h>

#define GS_CHUNK_MAGIC "GSCK"

static inline void gs_put_u16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void gs_put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t gs_get_u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t gs_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

#endif
