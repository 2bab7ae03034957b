// XCB (the X protocol C binding) with MIT-SHM and XFIXES, for MediaEngine's screen capture. XCB,
// not Xlib: Xlib's default I/O error handler exits the process when the X server goes away, XCB
// only marks the connection as failed (xcb_connection_has_error). Only MediaEngine imports this
// module (`internal import CXcb`).
#ifndef AVF_CXCB_SHIM_H
#define AVF_CXCB_SHIM_H

#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xfixes.h>

static const int AVF_IPC_PRIVATE = IPC_PRIVATE;
static const int AVF_IPC_CREAT = IPC_CREAT;
static const int AVF_IPC_RMID = IPC_RMID;

// shmat's failure value ((void *)-1) as NULL.
static inline void *avf_shmat(int shmid) {
    void *p = shmat(shmid, NULL, 0);
    return p == (void *)-1 ? NULL : p;
}

#endif
