package v4l2

// The kernel's V4L2 and uvcvideo ABI as far as capture needs it, from
// linux/videodev2.h, linux/uvcvideo.h and linux/usb/video.h, for 64-bit
// Linux (amd64, arm64: a NAO v6, a Robotino 3). Struct layouts are
// written out field by field with the kernel's padding; abi_test.go checks
// sizes, offsets and request numbers against values the kernel headers
// give on amd64.

import "unsafe"

// ioctl request encoding (asm-generic/ioctl.h): dir<<30 | size<<16 |
// type<<8 | nr.
const (
	iocNone  = 0
	iocWrite = 1
	iocRead  = 2
)

func ioc(dir, typ, nr, size uintptr) uintptr { return dir<<30 | size<<16 | typ<<8 | nr }
func ior(typ, nr, size uintptr) uintptr      { return ioc(iocRead, typ, nr, size) }
func iow(typ, nr, size uintptr) uintptr      { return ioc(iocWrite, typ, nr, size) }
func iowr(typ, nr, size uintptr) uintptr     { return ioc(iocRead|iocWrite, typ, nr, size) }

// Request numbers.
var (
	vidiocQuerycap  = ior('V', 0, unsafe.Sizeof(capability{}))
	vidiocSFmt      = iowr('V', 5, unsafe.Sizeof(format{}))
	vidiocReqbufs   = iowr('V', 8, unsafe.Sizeof(requestBuffers{}))
	vidiocQuerybuf  = iowr('V', 9, unsafe.Sizeof(buffer{}))
	vidiocQbuf      = iowr('V', 15, unsafe.Sizeof(buffer{}))
	vidiocDqbuf     = iowr('V', 17, unsafe.Sizeof(buffer{}))
	vidiocStreamon  = iow('V', 18, unsafe.Sizeof(int32(0)))
	vidiocStreamoff = iow('V', 19, unsafe.Sizeof(int32(0)))
	vidiocSParm     = iowr('V', 22, unsafe.Sizeof(streamParm{}))
	vidiocGCtrl     = iowr('V', 27, unsafe.Sizeof(control{}))
	vidiocSCtrl     = iowr('V', 28, unsafe.Sizeof(control{}))
	uvciocCtrlQuery = iowr('u', 0x21, unsafe.Sizeof(xuQuery{}))
)

// Constants.
const (
	bufTypeVideoCapture = 1
	memoryMmap          = 1
	fieldNone           = 1

	// PixYUYV is V4L2_PIX_FMT_YUYV, v4l2_fourcc('Y','U','Y','V').
	PixYUYV = 'Y' | 'U'<<8 | 'Y'<<16 | 'V'<<24

	capVideoCapture = 0x00000001
	capStreaming    = 0x04000000
	capDeviceCaps   = 0x80000000

	bufFlagTimestampMask      = 0x0000e000
	bufFlagTimestampMonotonic = 0x00002000

	// uvcSetCur and uvcGetCur are UVC's SET_CUR and GET_CUR requests.
	uvcSetCur = 0x01
	uvcGetCur = 0x81
)

// Control IDs (V4L2_CID_*).
const (
	CIDBrightness              = 0x00980900
	CIDContrast                = 0x00980901
	CIDSaturation              = 0x00980902
	CIDHue                     = 0x00980903
	CIDAutoWhiteBalance        = 0x0098090c
	CIDGain                    = 0x00980913
	CIDHFlip                   = 0x00980914
	CIDVFlip                   = 0x00980915
	CIDWhiteBalanceTemperature = 0x0098091a
	CIDSharpness               = 0x0098091b
	CIDExposureAuto            = 0x009a0901
	CIDExposureAbsolute        = 0x009a0902
)

// V4L2_CID_EXPOSURE_AUTO's menu: uvcvideo offers manual (1) and aperture
// priority (3), which is its automatic exposure.
const (
	ExposureManual           = 1
	ExposureAperturePriority = 3
)

// struct v4l2_capability.
type capability struct {
	Driver       [16]byte
	Card         [32]byte
	BusInfo      [32]byte
	Version      uint32
	Capabilities uint32
	DeviceCaps   uint32
	Reserved     [3]uint32
}

// struct v4l2_pix_format.
type pixFormat struct {
	Width        uint32
	Height       uint32
	PixelFormat  uint32
	Field        uint32
	BytesPerLine uint32
	SizeImage    uint32
	Colorspace   uint32
	Priv         uint32
	Flags        uint32
	YcbcrEnc     uint32
	Quantization uint32
	XferFunc     uint32
}

// struct v4l2_format: the union is 200 bytes and 8-byte aligned (it
// holds pointers in other members).
type format struct {
	Type uint32
	_    uint32
	Pix  pixFormat
	_    [200 - unsafe.Sizeof(pixFormat{})]byte
}

// struct v4l2_requestbuffers.
type requestBuffers struct {
	Count        uint32
	Type         uint32
	Memory       uint32
	Capabilities uint32
	Flags        uint8
	_            [3]uint8
}

// struct v4l2_timecode.
type timecode struct {
	Type, Flags                     uint32
	Frames, Seconds, Minutes, Hours uint8
	Userbits                        [4]uint8
}

// struct v4l2_buffer with a 64-bit struct timeval.
type buffer struct {
	Index     uint32
	Type      uint32
	BytesUsed uint32
	Flags     uint32
	Field     uint32
	_         uint32
	Sec       int64
	Usec      int64
	Timecode  timecode
	Sequence  uint32
	Memory    uint32
	Offset    uint64 // union m: the mmap offset (its low 32 bits), a pointer or an fd
	Length    uint32
	Reserved2 uint32
	RequestFd int32
	_         uint32
}

// struct v4l2_control.
type control struct {
	ID    uint32
	Value int32
}

// struct v4l2_fract.
type fract struct{ Numerator, Denominator uint32 }

// struct v4l2_streamparm with the capture member of its 200-byte union.
type streamParm struct {
	Type         uint32
	Capability   uint32
	CaptureMode  uint32
	TimePerFrame fract
	ExtendedMode uint32
	ReadBuffers  uint32
	_            [200 - 4*4 - 8]byte
}

// struct uvc_xu_control_query.
type xuQuery struct {
	Unit     uint8
	Selector uint8
	Query    uint8
	_        uint8
	Size     uint16
	_        uint16
	Data     uintptr // __u8 __user *
}
