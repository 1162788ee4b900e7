/* memcg/limit.h: libmemcg's public interface for 'set-limit' (included by memcg.h). */
#ifndef MEMCG_LIMIT_H
#define MEMCG_LIMIT_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/limit.h>"
#endif

#endif
