/* memcg/empty.h: libmemcg's public interface for 'empty' (included by memcg.h). */
#ifndef MEMCG_EMPTY_H
#define MEMCG_EMPTY_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/empty.h>"
#endif

#endif
