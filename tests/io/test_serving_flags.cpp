// Serving launch flags out (vLLM, TensorRT-LLM) and read back, and where a
// run's engine settings go.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "framework_config.h"
#include "serving.h"

using namespace napkin;

TEST(FrameworkEmit, ServingRoundTrip) {
  ServingFlagsInput in;
  in.model = "meta-llama/Llama-3.1-70B";
  in.tp = 8;
  in.pp = 2;
  in.max_batch = 64;
  in.max_input_tokens = 8192;
  in.max_seq_tokens = 8192;
  in.weight_dtype = "fp8";
  in.kv_dtype = "fp8";
  EXPECT_EQ(parse_serving_flags(emit_vllm(in).text, "vllm"), in);
  in.max_input_tokens = 6144;
  in.weight_dtype = "int4";
  in.kv_dtype = "int8";
  EXPECT_EQ(parse_serving_flags(emit_tensorrt_llm(in).text, "trt"), in);
  // NVFP4 weights come from Model Optimizer's quantize.py, not convert_checkpoint.
  in.weight_dtype = "fp4";
  in.kv_dtype = "fp8";
  const EmittedFlags nvfp4 = emit_tensorrt_llm(in);
  EXPECT_NE(nvfp4.text.find("python quantize.py"), std::string::npos) << nvfp4.text;
  EXPECT_NE(nvfp4.text.find("--qformat nvfp4 --kv_cache_dtype fp8"), std::string::npos);
  EXPECT_EQ(nvfp4.text.find("convert_checkpoint"), std::string::npos);
  EXPECT_EQ(parse_serving_flags(nvfp4.text, "trt"), in);
  in.weight_dtype = "int4";
  in.kv_dtype = "int8";
  // The iteration's token budget where the run set one.
  in.max_num_tokens = 4096;
  EXPECT_NE(emit_tensorrt_llm(in).text.find("--max_num_tokens 4096"), std::string::npos);
  EXPECT_EQ(parse_serving_flags(emit_tensorrt_llm(in).text, "trt"), in);
  in.weight_dtype = in.kv_dtype = "fp8";
  in.max_input_tokens = in.max_seq_tokens;
  EXPECT_NE(emit_vllm(in).text.find("--max-num-batched-tokens 4096"), std::string::npos);
  EXPECT_EQ(parse_serving_flags(emit_vllm(in).text, "vllm"), in);
  // vLLM's share of the device's memory where the run set one.
  in.gpu_memory_utilization = 0.95;
  EXPECT_NE(emit_vllm(in).text.find("--gpu-memory-utilization 0.95"), std::string::npos);
  EXPECT_EQ(parse_serving_flags(emit_vllm(in).text, "vllm"), in);
  EXPECT_THROW(parse_serving_flags("vllm serve m --gpu-memory-utilization 1.5", "vllm"),
               std::invalid_argument);
}

// The run's memory setting is its engine's: emitted for that engine, named as
// a run-time setting for TensorRT-LLM, and not carried to another engine.
TEST(FrameworkEmit, AMemoryFractionGoesToItsOwnEngine) {
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.assume.engine_memory_fraction = 0.85;
  auto notes = [](const EmittedFlags& f) {
    std::string all;
    for (const std::string& c : f.caveats) all += c + "\n";
    return all;
  };
  in.engine = "vllm";
  const EmittedFlags vllm = emit_serving_flags(ServingFlagsEngine::vllm, in, 64, "m", 0, {});
  EXPECT_NE(vllm.text.find("--gpu-memory-utilization 0.85"), std::string::npos) << vllm.text;
  const EmittedFlags other =
      emit_serving_flags(ServingFlagsEngine::tensorrt_llm, in, 64, "m", 0, {});
  EXPECT_NE(notes(other).find("vllm engine's setting and is not carried over"), std::string::npos)
      << notes(other);
  in.engine = "tensorrt-llm";
  const EmittedFlags trt = emit_serving_flags(ServingFlagsEngine::tensorrt_llm, in, 64, "m", 0, {});
  EXPECT_EQ(trt.text.find("0.85"), std::string::npos) << trt.text;
  EXPECT_NE(notes(trt).find("--kv_cache_free_gpu_memory_fraction 0.85"), std::string::npos)
      << notes(trt);
  const EmittedFlags to_vllm = emit_serving_flags(ServingFlagsEngine::vllm, in, 64, "m", 0, {});
  EXPECT_EQ(to_vllm.text.find("--gpu-memory-utilization"), std::string::npos) << to_vllm.text;
}
