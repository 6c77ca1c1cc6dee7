// Package cuda is the small part of NVIDIA's CUDA driver API that
// orilab gpu run needs: initialise, pick device 0, load a module (a
// cubin, or PTX for the driver's JIT), allocate and copy device memory,
// launch a kernel with a packed parameter buffer and read the result.
//
// libcuda is loaded at run time with github.com/ebitengine/purego
// (dlopen, no cgo), so orilab builds and its tests run on machines
// without CUDA: there Load returns an error saying so. ORILAB_LIBCUDA
// names another library file (tests use it to force the absence).
//
// Every function is declared from the driver API's documented C
// signatures (cuda.h, CUDA 12/13: cuInit, cuDeviceGet,
// cuDeviceGetAttribute, cuDevicePrimaryCtxRetain,
// cuDevicePrimaryCtxRelease_v2, cuCtxSetCurrent, cuCtxSynchronize,
// cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuMemAlloc_v2,
// cuMemFree_v2, cuMemcpyHtoD_v2, cuMemcpyDtoH_v2, cuLaunchKernel,
// cuGetErrorName). Decision: the parameters go to cuLaunchKernel as one
// buffer through its extra argument (CU_LAUNCH_PARAM_BUFFER_POINTER,
// CU_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_END), laid out at the
// offsets of the cubin's KPARAM_INFO by the caller; the buffer, its size
// and the extra array are pinned Go memory (runtime.Pinner) for the call.
//
// Not run on hardware: the session that wrote this package had no GPU.
// Only the paths without a driver are tested.
package cuda
