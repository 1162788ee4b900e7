/* fuzz_zoneinfo.c: /proc/zoneinfo through mcg_dirty_reserve_parse (the kernel's totalreserve_pages). */
#include "fuzz.h"

#include "memcg/dirty.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v = 7;
	char *text;
	int r;

	if (size > 1 << 18)
		return -1;
	text = fz_str(data, size);
	r = mcg_dirty_reserve_parse(text, &v);
	FZ_CHECK(r == 0 || r == -EINVAL, "mcg_dirty_reserve_parse: %d", r);
	if (r < 0)
		FZ_CHECK(v == 7, "mcg_dirty_reserve_parse wrote its result on failure");
	free(text);
	return 0;
}
