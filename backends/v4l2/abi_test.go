package v4l2

import (
	"testing"
	"time"
	"unsafe"
)

// The expected values are what linux/videodev2.h, linux/uvcvideo.h and
// linux/usb/video.h give on amd64 (printed by a C program with sizeof,
// offsetof and the request macros, Linux UAPI headers of Debian 12); arm64
// has the same layouts.
func TestRequestNumbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"VIDIOC_QUERYCAP", vidiocQuerycap, 0x80685600},
		{"VIDIOC_S_FMT", vidiocSFmt, 0xc0d05605},
		{"VIDIOC_REQBUFS", vidiocReqbufs, 0xc0145608},
		{"VIDIOC_QUERYBUF", vidiocQuerybuf, 0xc0585609},
		{"VIDIOC_QBUF", vidiocQbuf, 0xc058560f},
		{"VIDIOC_DQBUF", vidiocDqbuf, 0xc0585611},
		{"VIDIOC_STREAMON", vidiocStreamon, 0x40045612},
		{"VIDIOC_STREAMOFF", vidiocStreamoff, 0x40045613},
		{"VIDIOC_S_PARM", vidiocSParm, 0xc0cc5616},
		{"VIDIOC_G_CTRL", vidiocGCtrl, 0xc008561b},
		{"VIDIOC_S_CTRL", vidiocSCtrl, 0xc008561c},
		{"UVCIOC_CTRL_QUERY", uvciocCtrlQuery, 0xc0107521},
		{"V4L2_PIX_FMT_YUYV", PixYUYV, 0x56595559},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %#x, want %#x", tc.name, tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		name      string
		got, want uint32
	}{
		{"V4L2_CID_EXPOSURE_AUTO", CIDExposureAuto, 0x009a0901},
		{"V4L2_CID_EXPOSURE_ABSOLUTE", CIDExposureAbsolute, 0x009a0902},
		{"V4L2_CID_GAIN", CIDGain, 0x00980913},
		{"V4L2_CID_AUTO_WHITE_BALANCE", CIDAutoWhiteBalance, 0x0098090c},
		{"V4L2_CID_WHITE_BALANCE_TEMPERATURE", CIDWhiteBalanceTemperature, 0x0098091a},
		{"V4L2_CID_HFLIP", CIDHFlip, 0x00980914},
		{"V4L2_CID_VFLIP", CIDVFlip, 0x00980915},
		{"V4L2_CID_BRIGHTNESS", CIDBrightness, 0x00980900},
		{"V4L2_CID_SHARPNESS", CIDSharpness, 0x0098091b},
		{"UVC_SET_CUR", uvcSetCur, 0x01},
		{"UVC_GET_CUR", uvcGetCur, 0x81},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %#x, want %#x", tc.name, tc.got, tc.want)
		}
	}
}

func TestStructLayouts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof v4l2_capability", unsafe.Sizeof(capability{}), 104},
		{"offsetof v4l2_capability.capabilities", unsafe.Offsetof(capability{}.Capabilities), 84},
		{"offsetof v4l2_capability.device_caps", unsafe.Offsetof(capability{}.DeviceCaps), 88},
		{"sizeof v4l2_format", unsafe.Sizeof(format{}), 208},
		{"offsetof v4l2_format.fmt", unsafe.Offsetof(format{}.Pix), 8},
		{"sizeof v4l2_pix_format", unsafe.Sizeof(pixFormat{}), 48},
		{"sizeof v4l2_requestbuffers", unsafe.Sizeof(requestBuffers{}), 20},
		{"sizeof v4l2_buffer", unsafe.Sizeof(buffer{}), 88},
		{"offsetof v4l2_buffer.bytesused", unsafe.Offsetof(buffer{}.BytesUsed), 8},
		{"offsetof v4l2_buffer.flags", unsafe.Offsetof(buffer{}.Flags), 12},
		{"offsetof v4l2_buffer.field", unsafe.Offsetof(buffer{}.Field), 16},
		{"offsetof v4l2_buffer.timestamp", unsafe.Offsetof(buffer{}.Sec), 24},
		{"offsetof v4l2_buffer.timecode", unsafe.Offsetof(buffer{}.Timecode), 40},
		{"sizeof v4l2_timecode", unsafe.Sizeof(timecode{}), 16},
		{"offsetof v4l2_buffer.sequence", unsafe.Offsetof(buffer{}.Sequence), 56},
		{"offsetof v4l2_buffer.memory", unsafe.Offsetof(buffer{}.Memory), 60},
		{"offsetof v4l2_buffer.m", unsafe.Offsetof(buffer{}.Offset), 64},
		{"offsetof v4l2_buffer.length", unsafe.Offsetof(buffer{}.Length), 72},
		{"offsetof v4l2_buffer.reserved2", unsafe.Offsetof(buffer{}.Reserved2), 76},
		{"sizeof v4l2_control", unsafe.Sizeof(control{}), 8},
		{"sizeof v4l2_streamparm", unsafe.Sizeof(streamParm{}), 204},
		{"offsetof v4l2_streamparm.parm.capture.timeperframe", unsafe.Offsetof(streamParm{}.TimePerFrame), 4 + 8},
		{"sizeof uvc_xu_control_query", unsafe.Sizeof(xuQuery{}), 16},
		{"offsetof uvc_xu_control_query.selector", unsafe.Offsetof(xuQuery{}.Selector), 1},
		{"offsetof uvc_xu_control_query.query", unsafe.Offsetof(xuQuery{}.Query), 2},
		{"offsetof uvc_xu_control_query.size", unsafe.Offsetof(xuQuery{}.Size), 4},
		{"offsetof uvc_xu_control_query.data", unsafe.Offsetof(xuQuery{}.Data), 8},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestBufferAndCapsDecoding(t *testing.T) {
	b := buffer{Index: 3, BytesUsed: 614400, Sequence: 77, Sec: 12, Usec: 345678, Flags: bufFlagTimestampMonotonic | 0x1}
	got := bufferOf(&b)
	want := Buffer{Index: 3, BytesUsed: 614400, Sequence: 77, Timestamp: 12*time.Second + 345678*time.Microsecond, Monotonic: true}
	if got != want {
		t.Errorf("bufferOf = %+v, want %+v", got, want)
	}
	b.Flags = 0x4000 // V4L2_BUF_FLAG_TIMESTAMP_COPY
	if bufferOf(&b).Monotonic {
		t.Error("a copied timestamp read as monotonic")
	}
	var c capability
	copy(c.Driver[:], "uvcvideo\x00junk")
	copy(c.Card[:], "Leopard Imaging")
	c.Capabilities = capDeviceCaps | capVideoCapture | capStreaming
	c.DeviceCaps = capVideoCapture // this node: capture, no streaming
	if caps := capsOf(&c); caps.Driver != "uvcvideo" || caps.Card != "Leopard Imaging" || !caps.Capture || caps.Streaming {
		t.Errorf("capsOf = %+v", caps)
	}
}

// FuzzCapabilities feeds a driver's capability struct as arbitrary bytes:
// decoding never panics and the strings never run past their arrays.
func FuzzCapabilities(f *testing.F) {
	f.Add([]byte("uvcvideo\x00"))
	f.Add(make([]byte, 104))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var c capability
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&c)), unsafe.Sizeof(c)), raw)
		caps := capsOf(&c)
		if len(caps.Driver) > 16 || len(caps.Card) > 32 || len(caps.Bus) > 32 {
			t.Fatalf("strings beyond their arrays: %+v", caps)
		}
		var b buffer
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&b)), unsafe.Sizeof(b)), raw)
		_ = bufferOf(&b)
	})
}
