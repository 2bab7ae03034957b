// The kernel's Video4Linux2 API (linux/videodev2.h) for MediaEngine's camera backend, with raw
// ioctls (no libv4l2). The VIDIOC_* request codes are macros built from _IOWR(…, struct …) and the
// V4L2_PIX_FMT_* codes from v4l2_fourcc(…): Swift does not import such macros ("structure not
// supported"), so this header re-exports the ones the backend uses as constants (AVF_ prefix).
// Only MediaEngine imports this module (`internal import CV4L2`).
#ifndef AVF_CV4L2_SHIM_H
#define AVF_CV4L2_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/videodev2.h>

// ioctl request codes.
static const unsigned long AVF_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long AVF_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long AVF_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long AVF_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long AVF_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long AVF_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long AVF_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long AVF_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long AVF_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long AVF_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long AVF_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long AVF_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long AVF_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long AVF_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long AVF_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long AVF_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long AVF_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long AVF_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long AVF_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long AVF_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long AVF_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long AVF_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
static const unsigned long AVF_VIDIOC_S_PRIORITY = VIDIOC_S_PRIORITY;

// Pixel formats (fourcc codes).
static const uint32_t AVF_V4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const uint32_t AVF_V4L2_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
static const uint32_t AVF_V4L2_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
static const uint32_t AVF_V4L2_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
static const uint32_t AVF_V4L2_PIX_FMT_GREY = V4L2_PIX_FMT_GREY;
static const uint32_t AVF_V4L2_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const uint32_t AVF_V4L2_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;
static const uint32_t AVF_V4L2_PIX_FMT_H264 = V4L2_PIX_FMT_H264;
static const uint32_t AVF_V4L2_PIX_FMT_BGR24 = V4L2_PIX_FMT_BGR24;
static const uint32_t AVF_V4L2_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;

// Capabilities, buffer types and flags.
static const uint32_t AVF_V4L2_CAP_VIDEO_CAPTURE = V4L2_CAP_VIDEO_CAPTURE;
static const uint32_t AVF_V4L2_CAP_VIDEO_CAPTURE_MPLANE = V4L2_CAP_VIDEO_CAPTURE_MPLANE;
static const uint32_t AVF_V4L2_CAP_VIDEO_OUTPUT = V4L2_CAP_VIDEO_OUTPUT;
static const uint32_t AVF_V4L2_CAP_VIDEO_M2M = V4L2_CAP_VIDEO_M2M;
static const uint32_t AVF_V4L2_CAP_VIDEO_M2M_MPLANE = V4L2_CAP_VIDEO_M2M_MPLANE;
static const uint32_t AVF_V4L2_CAP_META_CAPTURE = V4L2_CAP_META_CAPTURE;
static const uint32_t AVF_V4L2_CAP_STREAMING = V4L2_CAP_STREAMING;
static const uint32_t AVF_V4L2_CAP_DEVICE_CAPS = V4L2_CAP_DEVICE_CAPS;
static const uint32_t AVF_V4L2_CAP_TIMEPERFRAME = V4L2_CAP_TIMEPERFRAME;
static const uint32_t AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE = V4L2_BUF_TYPE_VIDEO_CAPTURE;
static const uint32_t AVF_V4L2_MEMORY_MMAP = V4L2_MEMORY_MMAP;
static const uint32_t AVF_V4L2_FIELD_NONE = V4L2_FIELD_NONE;
static const uint32_t AVF_V4L2_FIELD_ANY = V4L2_FIELD_ANY;
static const uint32_t AVF_V4L2_BUF_FLAG_TIMESTAMP_MASK = V4L2_BUF_FLAG_TIMESTAMP_MASK;
static const uint32_t AVF_V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
static const uint32_t AVF_V4L2_BUF_FLAG_ERROR = V4L2_BUF_FLAG_ERROR;
static const uint32_t AVF_V4L2_FMT_FLAG_COMPRESSED = V4L2_FMT_FLAG_COMPRESSED;
static const uint32_t AVF_V4L2_FMT_FLAG_EMULATED = V4L2_FMT_FLAG_EMULATED;
static const uint32_t AVF_V4L2_FRMSIZE_TYPE_DISCRETE = V4L2_FRMSIZE_TYPE_DISCRETE;
static const uint32_t AVF_V4L2_FRMSIZE_TYPE_CONTINUOUS = V4L2_FRMSIZE_TYPE_CONTINUOUS;
static const uint32_t AVF_V4L2_FRMSIZE_TYPE_STEPWISE = V4L2_FRMSIZE_TYPE_STEPWISE;
static const uint32_t AVF_V4L2_FRMIVAL_TYPE_DISCRETE = V4L2_FRMIVAL_TYPE_DISCRETE;
static const uint32_t AVF_V4L2_FRMIVAL_TYPE_CONTINUOUS = V4L2_FRMIVAL_TYPE_CONTINUOUS;
static const uint32_t AVF_V4L2_FRMIVAL_TYPE_STEPWISE = V4L2_FRMIVAL_TYPE_STEPWISE;
static const uint32_t AVF_V4L2_PRIORITY_DEFAULT = V4L2_PRIORITY_DEFAULT;
static const uint32_t AVF_V4L2_PRIORITY_RECORD = V4L2_PRIORITY_RECORD;

// Controls.
static const uint32_t AVF_V4L2_CTRL_FLAG_NEXT_CTRL = V4L2_CTRL_FLAG_NEXT_CTRL;
static const uint32_t AVF_V4L2_CTRL_FLAG_NEXT_COMPOUND = V4L2_CTRL_FLAG_NEXT_COMPOUND;
static const uint32_t AVF_V4L2_CTRL_FLAG_DISABLED = V4L2_CTRL_FLAG_DISABLED;
static const uint32_t AVF_V4L2_CTRL_FLAG_READ_ONLY = V4L2_CTRL_FLAG_READ_ONLY;
static const uint32_t AVF_V4L2_CTRL_FLAG_INACTIVE = V4L2_CTRL_FLAG_INACTIVE;
static const uint32_t AVF_V4L2_CTRL_FLAG_WRITE_ONLY = V4L2_CTRL_FLAG_WRITE_ONLY;
static const uint32_t AVF_V4L2_CTRL_TYPE_INTEGER = V4L2_CTRL_TYPE_INTEGER;
static const uint32_t AVF_V4L2_CTRL_TYPE_BOOLEAN = V4L2_CTRL_TYPE_BOOLEAN;
static const uint32_t AVF_V4L2_CTRL_TYPE_MENU = V4L2_CTRL_TYPE_MENU;
static const uint32_t AVF_V4L2_CTRL_TYPE_BUTTON = V4L2_CTRL_TYPE_BUTTON;
static const uint32_t AVF_V4L2_CTRL_TYPE_INTEGER64 = V4L2_CTRL_TYPE_INTEGER64;
static const uint32_t AVF_V4L2_CTRL_TYPE_CTRL_CLASS = V4L2_CTRL_TYPE_CTRL_CLASS;
static const uint32_t AVF_V4L2_CTRL_TYPE_INTEGER_MENU = V4L2_CTRL_TYPE_INTEGER_MENU;
static const uint32_t AVF_V4L2_CTRL_TYPE_BITMASK = V4L2_CTRL_TYPE_BITMASK;
static const uint32_t AVF_V4L2_CTRL_CLASS_USER = V4L2_CTRL_CLASS_USER;
static const uint32_t AVF_V4L2_CTRL_CLASS_CAMERA = V4L2_CTRL_CLASS_CAMERA;
static const uint32_t AVF_V4L2_CTRL_CLASS_FLASH = V4L2_CTRL_CLASS_FLASH;
static const uint32_t AVF_V4L2_CTRL_WHICH_CUR_VAL = V4L2_CTRL_WHICH_CUR_VAL;

// The control ids the capture layer maps to Apple's device properties.
static const uint32_t AVF_V4L2_CID_BRIGHTNESS = V4L2_CID_BRIGHTNESS;
static const uint32_t AVF_V4L2_CID_AUTO_WHITE_BALANCE = V4L2_CID_AUTO_WHITE_BALANCE;
static const uint32_t AVF_V4L2_CID_DO_WHITE_BALANCE = V4L2_CID_DO_WHITE_BALANCE;
static const uint32_t AVF_V4L2_CID_WHITE_BALANCE_TEMPERATURE = V4L2_CID_WHITE_BALANCE_TEMPERATURE;
static const uint32_t AVF_V4L2_CID_POWER_LINE_FREQUENCY = V4L2_CID_POWER_LINE_FREQUENCY;
static const uint32_t AVF_V4L2_CID_EXPOSURE_AUTO = V4L2_CID_EXPOSURE_AUTO;
static const uint32_t AVF_V4L2_CID_EXPOSURE_ABSOLUTE = V4L2_CID_EXPOSURE_ABSOLUTE;
static const uint32_t AVF_V4L2_CID_EXPOSURE_AUTO_PRIORITY = V4L2_CID_EXPOSURE_AUTO_PRIORITY;
static const uint32_t AVF_V4L2_CID_FOCUS_ABSOLUTE = V4L2_CID_FOCUS_ABSOLUTE;
static const uint32_t AVF_V4L2_CID_FOCUS_AUTO = V4L2_CID_FOCUS_AUTO;
static const uint32_t AVF_V4L2_CID_ZOOM_ABSOLUTE = V4L2_CID_ZOOM_ABSOLUTE;
static const uint32_t AVF_V4L2_CID_AUTO_FOCUS_START = V4L2_CID_AUTO_FOCUS_START;
static const uint32_t AVF_V4L2_CID_AUTO_FOCUS_STATUS = V4L2_CID_AUTO_FOCUS_STATUS;
static const uint32_t AVF_V4L2_CID_3A_LOCK = V4L2_CID_3A_LOCK;
static const uint32_t AVF_V4L2_CID_CAMERA_ORIENTATION = V4L2_CID_CAMERA_ORIENTATION;
static const uint32_t AVF_V4L2_CID_FLASH_LED_MODE = V4L2_CID_FLASH_LED_MODE;
static const uint32_t AVF_V4L2_CID_FLASH_TORCH_INTENSITY = V4L2_CID_FLASH_TORCH_INTENSITY;
static const int32_t AVF_V4L2_EXPOSURE_AUTO = V4L2_EXPOSURE_AUTO;
static const int32_t AVF_V4L2_EXPOSURE_MANUAL = V4L2_EXPOSURE_MANUAL;
static const int32_t AVF_V4L2_EXPOSURE_SHUTTER_PRIORITY = V4L2_EXPOSURE_SHUTTER_PRIORITY;
static const int32_t AVF_V4L2_EXPOSURE_APERTURE_PRIORITY = V4L2_EXPOSURE_APERTURE_PRIORITY;
static const int32_t AVF_V4L2_FLASH_LED_MODE_NONE = V4L2_FLASH_LED_MODE_NONE;
static const int32_t AVF_V4L2_FLASH_LED_MODE_FLASH = V4L2_FLASH_LED_MODE_FLASH;
static const int32_t AVF_V4L2_FLASH_LED_MODE_TORCH = V4L2_FLASH_LED_MODE_TORCH;
static const uint32_t AVF_V4L2_AUTO_FOCUS_STATUS_BUSY = V4L2_AUTO_FOCUS_STATUS_BUSY;
static const uint32_t AVF_V4L2_LOCK_EXPOSURE = V4L2_LOCK_EXPOSURE;
static const uint32_t AVF_V4L2_LOCK_WHITE_BALANCE = V4L2_LOCK_WHITE_BALANCE;
static const uint32_t AVF_V4L2_LOCK_FOCUS = V4L2_LOCK_FOCUS;

// ioctl that retries while a signal interrupts it (EINTR). Returns ioctl's result; errno is
// ioctl's on failure.
static inline int avf_xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}

// open() without the variadic mode argument Swift cannot call.
static inline int avf_open(const char *path, int flags) { return open(path, flags); }

// The errno of the calling thread.
static inline int avf_errno(void) { return errno; }

// mmap of one driver buffer, MAP_FAILED as NULL.
static inline void *avf_mmap_buffer(int fd, size_t length, int64_t offset) {
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    return p == MAP_FAILED ? NULL : p;
}

#endif
