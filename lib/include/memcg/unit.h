/* memcg/unit.h: systemd units: resolving unit names to cgroups and back, setting unit properties over D-Bus (sd-bus). */
#ifndef MEMCG_UNIT_H
#define MEMCG_UNIT_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/unit.h>"
#endif

#endif
