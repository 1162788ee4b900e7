/* memcg/sample.h: libmemcg's public interface for 'top' (included by memcg.h). */
#ifndef MEMCG_SAMPLE_H
#define MEMCG_SAMPLE_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/sample.h>"
#endif

#endif
