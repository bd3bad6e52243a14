// GPU: tensors on the device. Host <-> device round trips for every dtype, strided and
// offset device views, the caching allocator reusing blocks across runs, and the
// KernelExecutor on device, host and mixed inputs (outputs poisoned, fresh random inputs,
// sizes 1, primes and non-divisible by the block) against the CPU reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "cuda/caching_allocator.h"
#include "cuda/driver.h"
#include "minifuser/minifuser.h"
#include "unit/codegen/golden_fusions.h"

namespace mf {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class DeviceTensors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cudaAvailable()) GTEST_SKIP() << cuda::noDeviceReason();
  }
};

constexpr DataType kTensorDtypes[] = {DataType::Bool,   DataType::Int32,        DataType::Int64,
                                      DataType::Half,   DataType::BFloat16,     DataType::Float,
                                      DataType::Double, DataType::Float8_e4m3fn};

// Same sizes, and every logical element the same bits (NaN payloads included).
void expectSameBits(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  const int64_t bytes = dataTypeSize(a.dtype());
  for (int64_t i = 0, bad = 0; i < a.numel() && bad < 5; ++i) {
    std::vector<int64_t> idx(a.dim());
    for (int64_t d = a.dim() - 1, rest = i; d >= 0; rest /= a.sizes()[d], --d)
      idx[d] = rest % a.sizes()[d];
    int64_t off_a = 0, off_b = 0;
    for (int64_t d = 0; d < a.dim(); ++d) {
      off_a += idx[d] * a.strides()[d];
      off_b += idx[d] * b.strides()[d];
    }
    if (std::memcmp(static_cast<const std::byte*>(a.rawData()) + off_a * bytes,
                    static_cast<const std::byte*>(b.rawData()) + off_b * bytes, bytes) != 0 &&
        ++bad)
      ADD_FAILURE() << what << ": element " << i << " is " << a.item(i) << ", expected "
                    << b.item(i);
  }
}

// Builds the golden fusion `name` (tests/unit/codegen/golden_fusions.cpp) into `fusion`.
void buildGolden(Fusion& fusion, const std::string& name) {
  for (const testing::GoldenFusion& g : testing::goldenFusions())
    if (g.name == name) return g.build(fusion);
  FAIL() << "no golden fusion " << name;
}

// Flatten, split by 128: [BIDx, TIDx].
void flatten128(TensorView* tv) {
  tv->merge(0)->split(0, 128);
  tv->axis(0)->parallelize(ParallelType::BIDx);
  tv->axis(1)->parallelize(ParallelType::TIDx);
}

// T3 = (T0 * T1) - T0 over symbolic (any strides) 2-D float inputs; exact on both sides
// (NVRTC compiles without FMA contraction).
void buildMulSub(Fusion& fusion) {
  TensorView* t0 = makeSymbolicTensor(2);
  TensorView* t1 = makeSymbolicTensor(2);
  fusion.addInput(t0);
  fusion.addInput(t1);
  TensorView* t2 = mul(t0, t1);
  TensorView* t3 = sub(t2, t0);
  fusion.addOutput(t3);
  for (TensorView* tv : {t2, t3}) flatten128(tv);
  inlineMost();
}

TEST_F(DeviceTensors, RoundTripEveryDtype) {
  uint64_t seed = 1;
  for (DataType dtype : kTensorDtypes) {
    Tensor host = Tensor::random({3, 37}, dtype, seed++);
    Tensor device = host.toDevice();
    EXPECT_TRUE(device.isCuda());
    EXPECT_EQ(device.device(), Device::Cuda);
    EXPECT_NE(device.devicePtr(), 0u);
    EXPECT_EQ(device.toDevice().devicePtr(), device.devicePtr());  // already there
    Tensor back = device.toHost();
    EXPECT_FALSE(back.isCuda());
    EXPECT_NE(back.rawData(), host.rawData());
    EXPECT_EQ(std::memcmp(back.rawData(), host.rawData(), host.nbytes()), 0)
        << "dtype " << toString(dtype);
  }
}

// Host-only accessors on a device tensor say where the tensor is and what to do.
TEST_F(DeviceTensors, HostAccessorsOnDeviceAreUserErrors) {
  Tensor device = Tensor::emptyDevice({2, 3}, DataType::Float);
  EXPECT_TRUE(device.isCuda());
  const auto on_device = [](const std::string& what) {
    return ThrowsMessage<UserError>(
        HasSubstr("Tensor::" + what + ": the float[2, 3] tensor is on the device; call toHost()"));
  };
  EXPECT_THAT([&] { device.item(0); }, on_device("value"));
  EXPECT_THAT([&] { device.at({0, 0}); }, on_device("at"));
  EXPECT_THAT([&] { device.data<float>(); }, on_device("data"));
  EXPECT_THAT([&] { device.rawData(); }, on_device("rawData"));
  EXPECT_THAT([&] { device.allocationItem(0); }, on_device("allocationItem"));
  EXPECT_THAT(device.toString(), HasSubstr("float[2, 3] on the device"));
  EXPECT_EQ(reinterpret_cast<uint64_t>(device.dataPtr()), device.devicePtr());
}

// Views of device storage share it; the offset moves the data pointer; a copy to the host
// keeps strides and offset, so it reads the same elements as the host view.
TEST_F(DeviceTensors, StridedAndOffsetDeviceViews) {
  Tensor host = Tensor::random({24}, DataType::Float, 9);
  Tensor device = host.toDevice();
  struct View {
    std::vector<int64_t> sizes, strides;
    int64_t offset;
  };
  for (const View& v :
       {View{{3, 4}, {1, 3}, 2}, View{{5, 3}, {0, 1}, 7}, View{{5}, {4}, 1}, View{{23}, {1}, 1}}) {
    Tensor view = device.asStrided(v.sizes, v.strides, v.offset);
    EXPECT_TRUE(view.isCuda());
    EXPECT_EQ(view.storageOffset(), v.offset);
    EXPECT_EQ(view.devicePtr(), device.devicePtr() + 4 * v.offset);
    expectSameBits(view.toHost(), host.asStrided(v.sizes, v.strides, v.offset), "view");
    // A non-owning view of the same memory reads the same elements.
    Tensor borrowed =
        Tensor::fromDevicePointer(view.dataPtr(), v.sizes, v.strides, DataType::Float);
    expectSameBits(borrowed.toHost(), host.asStrided(v.sizes, v.strides, v.offset), "borrowed");
  }
  EXPECT_THAT([&] { device.asStrided({5}, {5}, 4); },
              ThrowsMessage<UserError>(HasSubstr("reaches element 24 of a storage of 24")));
}

// Repeated runs take every device block (inputs copied from the host, outputs) from the
// cache: no cuMemAlloc after the first run.
TEST_F(DeviceTensors, CachingAllocatorReusesBlocksAcrossRuns) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildMulSub(fusion);
  std::vector<Tensor> inputs = {Tensor::random({100, 33}, DataType::Float, 1),
                                Tensor::random({100, 33}, DataType::Float, 2)};
  KernelExecutor ke;
  ke.compile(&fusion, inputs);
  ke.run(inputs);  // warm: fills the cache
  cuda::resetAllocatorStats();
  for (int i = 0; i < 3; ++i) ke.run(inputs);
  cuda::AllocatorStats stats = cuda::allocatorStats();
  EXPECT_EQ(stats.device_allocations, 0u);
  EXPECT_GE(stats.reuses, 9u);  // two inputs and one output per run
  EXPECT_GT(stats.bytes_cached, 0u);
  std::vector<Tensor> device_inputs = {inputs[0].toDevice(), inputs[1].toDevice()};
  for (int i = 0; i < 3; ++i) ke.run(device_inputs);
  EXPECT_EQ(cuda::allocatorStats().device_allocations, 0u);
  cuda::releaseCachedBlocks();
  EXPECT_EQ(cuda::allocatorStats().bytes_cached, 0u);
  EXPECT_GT(cuda::allocatorStats().bytes_in_use, 0u);  // device_inputs still hold theirs
  EXPECT_EQ(cuda::allocationSizeClass(1), 512u);
  EXPECT_EQ(cuda::allocationSizeClass((1 << 20) + 1), size_t{2} << 20);
}

// Device inputs give device outputs equal to the reference; host inputs give host outputs;
// mixed inputs give device outputs.
TEST_F(DeviceTensors, ExecutorOnDeviceHostAndMixedInputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildMulSub(fusion);
  KernelExecutor ke;
  ke.compile(&fusion, {}, {.index_type = DataType::Int32});
  uint64_t seed = 100;
  for (int64_t n : {1, 7, 131, 1000}) {
    std::vector<Tensor> host = {Tensor::random({n, n % 5 + 1}, DataType::Float, seed++),
                                Tensor::random({n, n % 5 + 1}, DataType::Float, seed++)};
    Tensor ref = ReferenceEvaluator(&fusion).run(host)[0];
    const std::string what = "n=" + std::to_string(n);
    Tensor on_device =
        ke.run({host[0].toDevice(), host[1].toDevice()}, {.poison_outputs = true})[0];
    EXPECT_TRUE(on_device.isCuda());
    expectSameBits(on_device.toHost(), ref, what + " device");
    Tensor on_host = ke.run(host, {.poison_outputs = true})[0];
    EXPECT_FALSE(on_host.isCuda());
    expectSameBits(on_host, ref, what + " host");
    // The reference takes device inputs too (copied to the host).
    expectSameBits(ReferenceEvaluator(&fusion).run({host[0].toDevice(), host[1]})[0], ref,
                   what + " reference on device inputs");
    Tensor mixed = ke.run({host[0], host[1].toDevice()}, {.poison_outputs = true})[0];
    EXPECT_TRUE(mixed.isCuda());
    expectSameBits(mixed.toHost(), ref, what + " mixed");
  }
}

// Transposed, overlapping (stride 0) and offset device inputs are passed with their real
// data pointer and strides.
TEST_F(DeviceTensors, ExecutorOnStridedDeviceViews) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildMulSub(fusion);
  KernelExecutor ke;
  ke.compile(&fusion);
  Tensor a = Tensor::random({300}, DataType::Float, 7);
  Tensor b = Tensor::random({300}, DataType::Float, 8);
  Tensor da = a.toDevice(), db = b.toDevice();
  std::vector<Tensor> host = {a.asStrided({13, 11}, {1, 13}, 3), b.asStrided({13, 11}, {0, 1}, 5)};
  std::vector<Tensor> device = {da.asStrided({13, 11}, {1, 13}, 3),
                                db.asStrided({13, 11}, {0, 1}, 5)};
  Tensor ref = ReferenceEvaluator(&fusion).run(host)[0];
  expectSameBits(ke.run(device, {.poison_outputs = true})[0].toHost(), ref, "device views");
  expectSameBits(ke.run(host, {.poison_outputs = true})[0], ref, "host views");
}

// A permuted output allocation: the executor's output (host or device) has the reference's
// strides and values.
TEST_F(DeviceTensors, PermutedOutputAgreesWithReference) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildGolden(fusion, "permuted_output_allocation");
  Tensor in = Tensor::random({37, 5}, DataType::Float, 3);
  KernelExecutor ke;
  ke.compile(&fusion, {in});
  Tensor ref = ReferenceEvaluator(&fusion).run({in})[0];
  EXPECT_EQ(ref.strides(), (std::vector<int64_t>{1, 37}));
  for (const Tensor& out : {ke.run({in}, {.poison_outputs = true})[0],
                            ke.run({in.toDevice()}, {.poison_outputs = true})[0].toHost()}) {
    EXPECT_EQ(out.strides(), ref.strides());
    expectSameBits(out, ref, "permuted");
  }
}

// A vectorized kernel takes a device view whose first element starts a vector, and rejects
// one that does not.
TEST_F(DeviceTensors, VectorizedDeviceViewAlignment) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildGolden(fusion, "vectorized_inner");  // [n, 4k] contiguous, vectors of 4 in and out
  Tensor host = Tensor::random({1000}, DataType::Float, 4);
  Tensor device = host.toDevice();
  KernelExecutor ke;
  ke.compile(&fusion);
  Tensor aligned = device.asStrided({37, 12}, {12, 1}, 8);
  Tensor ref = ReferenceEvaluator(&fusion).run({host.asStrided({37, 12}, {12, 1}, 8)})[0];
  expectSameBits(ke.run({aligned}, {.poison_outputs = true})[0].toHost(), ref, "aligned view");
  EXPECT_THAT(
      [&] {
        ke.run({device.asStrided({37, 12}, {12, 1}, 2)});
      },
      ThrowsMessage<UserError>(HasSubstr("needs its first element aligned to 16 bytes")));
}

// The layout op with device inputs: device output of the reference's padded shape, every
// logical element in place, used rows read from the device offsets; bad offsets raise the
// error flag, read after the launch.
TEST_F(DeviceTensors, LayoutOpWithDeviceInputs) {
  Fusion fusion;
  FusionGuard fg(&fusion);
  buildGolden(fusion, "layout_op_manual");  // input -> set -> layout op, Int32 offsets
  std::vector<Tensor> host = {Tensor::random({10, 7}, DataType::Float, 12),
                              Tensor::fromVector<int32_t>({0, 2, 5}, {3}),
                              Tensor::fromVector<int32_t>({0, 128, 256}, {3})};
  std::vector<Tensor> device = {host[0].toDevice(), host[1].toDevice(), host[2].toDevice()};
  KernelExecutor ke;
  ke.compile(&fusion, host);
  Tensor result = ke.run(device, {.zero_fill_layout_pads = true})[0];
  EXPECT_TRUE(result.isCuda());
  Tensor ref = ReferenceEvaluator(&fusion).run(host, {.layout_pad_fill = 0.0})[0];
  EXPECT_EQ(result.allocationSizes(), ref.allocationSizes());
  EXPECT_EQ(result.usedRows(), ref.usedRows());
  Tensor back = result.toHost();
  for (int64_t p = 0, bad = 0; p < ref.allocationNumel() && bad < 5; ++p)
    if (back.allocationItem(p) != ref.allocationItem(p) && ++bad)
      ADD_FAILURE() << "position " << p << ": gpu " << back.allocationItem(p) << " reference "
                    << ref.allocationItem(p);
  // The bad offsets of LayoutOpGpu.BadOffsetsRaiseErrorFlag, on the device.
  std::vector<Tensor> bad = {Tensor::random({300, 7}, DataType::Float, 5).toDevice(),
                             Tensor::fromVector<int32_t>({0, 100, 250}, {3}).toDevice(),
                             Tensor::fromVector<int32_t>({0, 64, 9000}, {3}).toDevice()};
  EXPECT_THAT([&] { ke.run(bad); },
              ThrowsMessage<UserError>(AllOf(HasSubstr("bad offsets detected on the GPU"),
                                             HasSubstr("output_offsets"))));
}

}  // namespace
}  // namespace mf
