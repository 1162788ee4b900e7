/* store.h: what the store room (the history store's writer, reader, events and times) shares: the on-disk layout. */
#ifndef MCG_STORE_H
#define MCG_STORE_H

#include "model/model.h"

#include <stdint.h>

/*
 * A segment: MCG__HIST_SEG_MAGIC, then frames. A frame: a 32-byte header,
 * little-endian:
 *   0 "MCHF"  4 type  5 flags (bit 0: zstd)  6 two zero bytes
 *   8 payload length on disk  12 payload length uncompressed
 *   16 time (CLOCK_REALTIME ns)  24 CRC-32C of the payload on disk
 *   28 CRC-32C of bytes 0..28 (a reader scanning headers checks them alone)
 * then the payload. Types: 0 segment header, 1 key frame, 2 delta frame.
 */
#define MCG__HIST_SEG_MAGIC {'M', 'C', 'G', 'H', 'I', 'S', 'T', 1}
#define MCG__HIST_FRAME_MAGIC "MCHF"
#define MCG__HIST_FHDR 32
/*
 * 2: an added cgroup is its slot, its path and its display name (empty for
 * none); 1 (read still): the slot and the path.
 */
#define MCG__HIST_FORMAT 2
#define MCG__HIST_FORMAT_NONAMES 1
enum { MCG__HIST_SEGHDR = 0, MCG__HIST_KEY = 1, MCG__HIST_DELTA = 2 };
#define MCG__HIST_ZSTD 1
/* A frame of 1M cgroups with every counter moving is ~700 MB; 64 MiB is ~90k cgroups' worth. */
#define MCG__HIST_MAX_RAW (64u << 20)
#define MCG__HIST_MAX_STR MCG_PATH_MAX
/* Counters a segment may name, cgroups a segment may hold at once. */
#define MCG__HIST_MAX_KEYS 1024
#define MCG__HIST_MAX_SLOTS (1u << 20)
#define MCG__HIST_VBYTES ((MCG_K__COUNT + 7) / 8)
/*
 * What the reader may allocate for one segment's decode state (cgroups, their
 * values, a frame's events): the most a frame the writer can write needs
 * (MCG__HIST_MAX_RAW covers ~90k cgroups), and more only as far as the
 * segment's own size, MCG__HIST_MEM_PER_BYTE to the byte, can account for it.
 * A crafted frame of a few KiB claiming 2^20 cgroups of 1024 counters each
 * (8 GiB) is refused as corrupt.
 */
#define MCG__HIST_MEM_PER_BYTE 64
#define MCG__HIST_MEM_BUDGET(seg_size) ((uint64_t)MCG__HIST_MAX_RAW + MCG__HIST_MEM_PER_BYTE * (uint64_t)(seg_size))

struct mcg__hist_fhdr {
	uint8_t type, flags;
	uint32_t plen, rawlen;
	uint64_t time_ns;
	uint32_t pcrc;
};
void mcg__hist_header_put(uint8_t *h, const struct mcg__hist_fhdr *f);
/* 0, or -MCG_E_CORRUPT with WHY. */
int mcg__hist_header_get(const uint8_t *h, struct mcg__hist_fhdr *f, const char **why);
void mcg__hist_put32(uint8_t *p, uint32_t v);
uint32_t mcg__hist_get32(const uint8_t *p);
void mcg__hist_put64(uint8_t *p, uint64_t v);
uint64_t mcg__hist_get64(const uint8_t *p);

struct mcg__hist_buf {
	uint8_t *p;
	size_t len, cap;
};
int mcg__hist_buf_reserve(struct mcg__hist_buf *b, size_t more);

/* The segments of a store, oldest first. */
struct mcg__hist_segent {
	char name[64];
	uint64_t start, size;
};
struct mcg__hist_seglist {
	size_t n;
	struct mcg__hist_segent *seg;
};
/* "history-<20 digits>.seg" and nothing else; its start time. */
bool mcg__hist_segname(const char *name, uint64_t *ret_start);
int mcg__hist_list(int dirfd, struct mcg__hist_seglist *ret);

#endif
