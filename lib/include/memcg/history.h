/* memcg/history.h: the history store: recording samples and events, reading them back (record, top --replay, dump). */
#ifndef MEMCG_HISTORY_H
#define MEMCG_HISTORY_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/history.h>"
#endif

#endif
