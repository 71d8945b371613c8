/* A stand-in libcudart.so.13 for timing the host side of the module's GPU path on a
 * machine without a GPU: every call succeeds and does nothing (no kernel runs, device
 * "memory" is host memory that nothing touches). Only for profiling host code. */
#include <stdlib.h>
#include <stddef.h>
#define OK 0
static int current_device = 0;
int cudaGetDeviceCount(int* n) { *n = 1; return OK; }
int cudaGetDevice(int* d) { *d = current_device; return OK; }
int cudaSetDevice(int d) { current_device = d; return OK; }
int cudaDeviceGetAttribute(int* v, int attr, int dev) {
  (void)dev;
  switch (attr) {
    case 16: *v = 132; break;      /* cudaDevAttrMultiProcessorCount */
    case 97: *v = 232448; break;   /* cudaDevAttrMaxSharedMemoryPerBlockOptin */
    default: *v = 1024; break;
  }
  return OK;
}
int cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void* f, int b, size_t s) { (void)f; (void)b; (void)s; *n = 1; return OK; }
int cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void* f, int b, size_t s, unsigned fl) { (void)f; (void)b; (void)s; (void)fl; *n = 1; return OK; }
int cudaMalloc(void** p, size_t bytes) { *p = malloc(bytes ? bytes : 1); return OK; }
int cudaFree(void* p) { free(p); return OK; }
int cudaMallocHost(void** p, size_t bytes) { *p = malloc(bytes ? bytes : 1); return OK; }
int cudaFreeHost(void* p) { free(p); return OK; }
const char* cudaGetErrorString(int e) { (void)e; return "stub error"; }
const char* cudaGetErrorName(int e) { (void)e; return "cudaErrorStub"; }
static void* handle[4];
void** __cudaRegisterFatBinary(void* f) { (void)f; return handle; }
/* Calls counted by name for the runtime calls a module call makes (stub_calls(name):
 * how many so far; the NOP functions and the memory/attribute queries above count too). */
#include <string.h>
#define MAX_COUNTED 96
static const char* counted_name[MAX_COUNTED];
static long counted[MAX_COUNTED];
static void count(const char* name) {
  for (int i = 0; i < MAX_COUNTED; ++i) {
    if (counted_name[i] == name) { ++counted[i]; return; }
    if (!counted_name[i]) { counted_name[i] = name; counted[i] = 1; return; }
  }
}
long stub_calls(const char* name) {
  for (int i = 0; i < MAX_COUNTED && counted_name[i]; ++i)
    if (!strcmp(counted_name[i], name)) return counted[i];
  return 0;
}
#define NOP(name) int name() { count(#name); return OK; }
void __cudaRegisterFatBinaryEnd(void** h) { (void)h; }
void __cudaUnregisterFatBinary(void** h) { (void)h; }
void __cudaRegisterFunction() {}
void __cudaRegisterVar() {}
NOP(__cudaGetKernel) NOP(__cudaLaunchKernel) NOP(__cudaPopCallConfiguration) NOP(__cudaPushCallConfiguration)
NOP(cudaCreateTextureObject) NOP(cudaDestroyTextureObject) NOP(cudaDeviceCanAccessPeer)
NOP(cudaDeviceEnablePeerAccess) NOP(cudaEventCreate) NOP(cudaEventCreateWithFlags) NOP(cudaEventDestroy)
NOP(cudaEventElapsedTime) NOP(cudaEventRecord) NOP(cudaEventSynchronize) NOP(cudaFreeArray) NOP(cudaFuncGetAttributes)
NOP(cudaFuncSetAttribute) NOP(cudaGetLastError) NOP(cudaGraphDestroy) NOP(cudaGraphExecDestroy) NOP(cudaGraphInstantiate)
NOP(cudaGraphLaunch) NOP(cudaHostRegister) NOP(cudaHostUnregister) NOP(cudaLaunchKernelExC) NOP(cudaMalloc3DArray)
NOP(cudaMallocArray) NOP(cudaMemGetInfo) NOP(cudaMemcpy) NOP(cudaMemcpy2DAsync) NOP(cudaMemcpy2DToArrayAsync)
NOP(cudaMemcpy3DAsync) NOP(cudaMemcpyAsync) NOP(cudaMemcpyPeerAsync) NOP(cudaMemsetAsync) NOP(cudaPeekAtLastError)
NOP(cudaPointerGetAttributes) NOP(cudaStreamBeginCapture) NOP(cudaStreamCreateWithFlags) NOP(cudaStreamDestroy)
NOP(cudaStreamEndCapture) NOP(cudaDeviceSynchronize) NOP(cudaStreamSynchronize) NOP(cudaStreamWaitEvent) NOP(cudaLaunchKernel)
struct cudaChannelFormatDesc { int x, y, z, w, f; };
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) { struct cudaChannelFormatDesc d = {x, y, z, w, f}; return d; }
