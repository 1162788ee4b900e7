/* fuzz_psi.c: PSI text (memory.pressure, /proc/pressure/memory) through mcg_psi_parse. */
#include "fuzz.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcg_psi psi;
	char *text;
	int r;

	if (size > 4096)
		return -1;
	text = fz_str(data, size);
	memset(&psi, 0x5a, sizeof(psi));
	r = mcg_psi_parse(text, &psi);
	FZ_CHECK(r == 0 || r == -EINVAL, "mcg_psi_parse: %d", r);
	if (r == 0) {
		FZ_CHECK(psi.some_valid || psi.full_valid, "success with neither line");
		FZ_CHECK((!psi.some_valid || strstr(text, "some ")) &&
				 (!psi.full_valid || strstr(text, "full ")),
			 "a line was found that the text does not have");
	}
	free(text);
	return 0;
}
