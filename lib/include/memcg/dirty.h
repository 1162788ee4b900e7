/* memcg/dirty.h: libmemcg's public interface for 'dirty' (included by memcg.h). */
#ifndef MEMCG_DIRTY_H
#define MEMCG_DIRTY_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/dirty.h>"
#endif

#endif
