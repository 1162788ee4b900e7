/* systemd.h: what the systemd room (unit resolution, sd-bus by dlopen, the property table) shares inside libmemcg. */
#ifndef MCG_SYSTEMD_H
#define MCG_SYSTEMD_H

#include "sys/sys.h"

#endif
