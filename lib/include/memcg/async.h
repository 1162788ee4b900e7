/* memcg/async.h: libmemcg's public interface for 'async-reclaim' (included by memcg.h). */
#ifndef MEMCG_ASYNC_H
#define MEMCG_ASYNC_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/async.h>"
#endif

#endif
