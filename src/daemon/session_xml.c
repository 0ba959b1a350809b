/* session_xml.c — a daemon session saved and loaded in LTTng's session XML (the format of
 * `lttng save`/`lttng load`, lttng-tools' session.xsd), with libxml2: what scry's sessions
 * have (kernel channels in discard mode, their buffer sizes, event rules with their filter,
 * contexts, the pid/vpid/uid/gid trackers, the output path, started or not).  Loading
 * refuses, naming it, any element scry does not know or any value it does not support
 * (another domain, overwrite channels, timers, tracefile limits, snapshot or network
 * outputs, rotation schedules...), and builds every session of the file before any is
 * created.  Contexts that session.xsd 2.12 does not name are saved as app contexts of the
 * provider "scry" (uid, gid, euid, cpu_id, *_ns).  libxml2 is loaded by the first save or load
 * (util/lazylib.h): a scry that does neither does not map it.  This file: libxml2's table,
 * shared by the save (session_xml_save.c) and the load (session_xml_load.c, its sessions;
 * session_xml_domain.c, their kernel domain), over session_xml_int.h. */
#include <pthread.h>
#include "daemon/session_xml_int.h"
#include "util/lazylib.h"

SCRY_LAZYLIB_DEFINE_SHARED(xml, xml_lib, "libxml2.so.2", "LTTng session files", XML_FNS);
