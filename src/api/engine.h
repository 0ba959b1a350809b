/* engine.h — the engine's headers as libscry's own files see them.  The public API
 * (include/scry/scry.h) takes names the engine uses too (struct scry_session, struct
 * scry_event, scry_session_start...): here the engine's are included under other names
 * (scry_engine_*), and the library's link gives the engine's objects those names
 * (the Makefile's objcopy --redefine-syms, its list made from the #define lines below:
 * one "#define NAME scry_engine_..." a line).  After this header, the public names are
 * the API's; the engine's are reached as scry_engine_*. */
#ifndef SCRY_API_ENGINE_H
#define SCRY_API_ENGINE_H

#define scry_session scry_engine_session
#define scry_event scry_engine_event
#define scry_session_enable_event scry_engine_session_enable_event
#define scry_session_add_context scry_engine_session_add_context
#define scry_session_start scry_engine_session_start
#define scry_session_run scry_engine_session_run
#define scry_session_stop scry_engine_session_stop
#define scry_session_destroy scry_engine_session_destroy

#include "catalog/catalog.h"
#include "catalog/record.h"
#include "ctl/client.h"
#include "ctl/verbs.h"
#include "kernel/probes.h"
#include "relay/proto.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/privs.h"

#undef scry_session
#undef scry_event
#undef scry_session_enable_event
#undef scry_session_add_context
#undef scry_session_start
#undef scry_session_run
#undef scry_session_stop
#undef scry_session_destroy

#endif
