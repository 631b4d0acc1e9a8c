"""Raw outputs of open models as public sources show them (each fixture names its source)."""

# Conventions
# - "text" is the generated assistant turn as the source shows it, special tokens kept as text.
#   Stop tokens the source shows at the end (<|eot_id|>, <|eom_id|>, <|eot|>, <|im_end|>,
#   <｜end▁of▁sentence｜>, <|call|>, <|return|>) are kept verbatim; a server usually does not
#   stream them as content, so they are never part of "content".
# - "tools" lists the tool names the output uses (for "plain" fixtures: the tools that were offered).
# - "content" and "reasoning" are stripped.  Where a source's own parser drops text that is visibly
#   there (e.g. text after a call), the note says so.
# - Many fixtures are hand-written parser-test inputs from vLLM/SGLang/Ollama, not captured model
#   generations; the note says "parser-test input" for those.  "captured output" marks texts a
#   source shows as what a real model generated.

_VLLM = "github.com/vllm-project/vllm"
_SGLANG = "github.com/sgl-project/sglang"
_OLLAMA = "github.com/ollama/ollama"
_LLAMA_MODELS = "github.com/meta-llama/llama-models"
_GEMMA_COOKBOOK = "github.com/google-gemini/gemma-cookbook"
_LLAMA_CPP = "github.com/ggml-org/llama.cpp"

# --- Seed-OSS-36B outputs in vLLM's seed_oss tool parser test (reasoning with a thinking budget) ---
_SEED_512 = (
    "<seed:think>The user's current thinking budget is 512.</seed:cot_budget_reflect>\nLet me analyze the "
    "question. The user wants to know the weather in Barcelona, Spain. Looking at the functions available, "
    "there's a get_weather function that can retrieve the current temperature for a given location. "
    "\n\nFirst, "
    "check the parameters required by get_weather: location is mandatory (needs city and country), and "
    "unit is "
    "optional. The user provided \"Barcelona Spain\" as the location, which fits the required format (city, "
    "country). \n<seed:cot_budget_reflect>I have used 131 tokens, and there are 381 tokens remaining for use."
    "</seed:cot_budget_reflect>\n Since the unit isn't specified, the function will default to Celsius, "
    "which "
    "is fine. \n\nThere's no need to ask for more information because the location is clear. So I should "
    "call "
    "the get_weather function with location set to \"Barcelona, Spain\" (adding a comma for clarity, "
    "though the "
    "user's input has a space, but the function might accept either; to be safe, using the standard format "
    "with a comma).\n<seed:cot_budget_reflect>I have used 257 tokens, and there are 255 tokens remaining for "
    "use.</seed:cot_budget_reflect>\n The unit parameter can be omitted since it's optional.</seed:think>\n"
    "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n</function>"
    "\n</seed:tool_call>"
)
_SEED_UNLIMITED = (
    "<seed:think>\nGot it, let's see. The user asked for the weather in Barcelona, Spain. "
    "First, I need to remember the function I can use: get_weather. The function requires a "
    "location (city and country) which is \"Barcelona, Spain\" here, and unit is optional. Since "
    "the user didn't specify the unit, the default in the function is Celsius, right? Wait, "
    "let me check the function docstring again. Oh, the function says unit is optional, and "
    "returns temperature in Celsius. So I should call get_weather with location \"Barcelona, "
    "Spain\" and maybe omit unit or set to Celsius. Let me format the function call correctly. "
    "The format is <seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, "
    "Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>. "
    "Wait, but does the unit parameter accept \"celsius\"? The docstring says unit is the unit "
    "of temperature, but the return is in Celsius anyway. Maybe even if I don't pass unit, "
    "it's okay, but to be explicit, maybe pass \"celsius\". Let me go with that. So the function "
    "call should be as above. Then wait for the result to come back and tell the user the "
    "temperature in Celsius.</seed:think><seed:tool_call>\n<function=get_weather>\n<parameter=location>"
    "Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>"
)


def _between(text: str, opener: str, closer: str) -> str:
    return text.split(opener, 1)[1].split(closer, 1)[0]


# --- Kimi K2 tool-call section as vLLM's kimi_k2 parser test builds it (_tool / _wrap helpers) ---
def _kimi(*calls: tuple[str, str]) -> str:
    return ("<|tool_calls_section_begin|>" + "".join(
        f"<|tool_call_begin|>{call_id} <|tool_call_argument_begin|>{args}<|tool_call_end|>"
        for call_id, args in calls) + "<|tool_calls_section_end|>")

# --- QwQ-32B output captured in vLLM's hermes parser test (the chat template prefills "<think>\n") ---
_QWQ_INTERNET_SEARCH = (
    "好的，用户现在要研发一个5MW"
    "的燃气轮机，需要确定总体"
    "参数，比如空气流量、压气机压比、转速、"
    "燃烧室出口温度、压气机级数和支点布"
    "局。首先，我需要回忆一下燃气轮机的基本"
    "设计参数和它们之间的关系。\n\n首"
    "先，燃气轮机的功率主要由"
    "热力学循环参数决定，比如压比、"
    "温度和空气流量。5MW属于"
    "中小型燃气轮机，可能用于分"
    "布式能源或航改型发动机。我"
    "需要先确定这些参数的大"
    "致范围。\n\n空气流量方面，通"
    "常燃气轮机的空气流量"
    "（ṁa）可以通过功率"
    "估算。根据经验"
    "，每兆瓦大约需要1-3 kg/s"
    "的空气流量。假设5MW的话，"
    "可能在5-15 kg/s之间。但具体"
    "数值需要结合其他参数。\n\n压气机"
    "压比（πc）是关键参数，通常"
    "中小型燃气轮机的压比在8-20之间。"
    "假设选择12的压比，这样可以在"
    "效率和结构之间取得平衡。\n\n转"
    "速方面，燃气轮机的转速较"
    "高，通常在8000-15000 rpm之间。"
    "考虑到5MW的规模，可能选"
    "择10000 rpm左右，这样可以平衡"
    "机械强度和效率。\n\n燃"
    "烧室出口温度（T3）是涡轮入"
    "口温度，直接影响效率和"
    "材料选择。现代燃气轮机的涡轮"
    "前温度可能在1400-1600K"
    "左右。假设1500K，但需要考虑"
    "材料限制，比如镍基合金的"
    "耐温能力。\n\n压气机级数需要"
    "根据压比和压气机的级效"
    "率来确定。假设每级的压比"
    "约为1.3，那么总级数大约是"
    "log(πc)/log(1.3) ≈ "
    "log(12)/log(1.3) ≈ 7-8级。"
    "可能需要8级压气机。\n\n"
    "支点布局方面，燃气轮机的支点"
    "通常布置在压气机和涡轮"
    "之间，以减少振动。常见的布局"
    "是两端支撑，或者中间"
    "加一个支点。对于中小型机，可能采"
    "用双支撑结构，比如在"
    "压气机端和涡轮端各一个，或者"
    "中间加一个中间支点来提"
    "高刚度。\n\n不过，这些数值"
    "可能需要进一步验证。比"
    "如，是否需要调用互联网搜索"
    "来确认这些参数的典型"
    "值？比如，5MW燃气轮机的空气"
    "流量、压比等是否有标准"
    "数据？或者是否有类似"
    "案例？\n\n用户"
    "可能希望得到一个具体"
    "的例子，所以可能需要结合典型"
    "设计参数。例如，参考现有"
    "的5MW级燃气轮机，如GE的LM2500或"
    "类似型号，但LM2500可能"
    "更大，需要调整。或者查找学术"
    "资料中的设计案例。\n\n可"
    "能需要调用互联网搜索工具来查找"
    "5MW燃气轮机的设计参数，"
    "比如空气流量、压比等，确保给出"
    "的数值合理。例如，搜索"
    "“5MW燃气轮机设计参数”或“中小型燃"
    "气轮机典型参数”。\n\n假设"
    "搜索结果给出类似参数，比如空气"
    "流量约10 kg/s，压比12，"
    "转速10000 rpm，涡轮前温度1500K，"
    "压气机8级，支点双支撑。这样"
    "可以形成一个范例。\n\n需要确保"
    "各参数之间的热力学一致性，"
    "比如通过理想循环计算验证。"
    "例如，使用布雷顿循环公式计"
    "算理论功率，再调整效率参数"
    "得到实际功率是否接近5MW。"
    "\n\n可能还需要考虑压气机效率、涡"
    "轮效率等因素。例如，假设压"
    "气机效率0.85，涡轮效率0.9，燃"
    "烧效率0.98，散热损失等，"
    "但用户可能只需要总体参数，不需"
    "要详细热力计算。\n\n总"
    "结下来，给出一个范例参数，同时"
    "说明这些参数的选择依据，"
    "并建议进一步详细设计时进行"
    "热力循环分析和结构强度校核"
    "。\n</think>\n\n<tool_call>"
    '\n{"name": '
    '"internet_search",'
    ' "arguments":'
    ' {"question": "'
    "5MW燃气轮机"
    "设计参数 空气流量 压气机"
    "压比 转速 燃烧室出口"
    "温度 压气机级数"
    ' 支点布局"}}\n</tool_call>\n\n '
)

FIXTURES: list[dict] = [
    # ------------------------------------------------------------------ hermes (Qwen2.5 / Qwen3)
    {
        "id": "hermes-qwen25-two-calls-docs",
        "dialect": "hermes",
        "family": "Qwen2.5",
        "source": "github.com/QwenLM/Qwen3 docs/source/framework/function_call.md @5e01d11 "
        "(Qwen2.5 era; 'The output texts should be like'), also qwen.readthedocs.io/en/v2.5",
        "text": (
            "<tool_call>\n"
            '{"name": "get_current_temperature", "arguments": {"location": "San Francisco, CA, USA"}}\n'
            "</tool_call>\n"
            "<tool_call>\n"
            '{"name": "get_temperature_date", "arguments": {"location": "San Francisco, CA, USA", '
            '"date": "2024-10-01"}}\n'
            "</tool_call><|im_end|>"
        ),
        "tools": ["get_current_temperature", "get_temperature_date"],
        "calls": [
            {"name": "get_current_temperature", "arguments": {"location": "San Francisco, CA, USA"}},
            {
                "name": "get_temperature_date",
                "arguments": {"location": "San Francisco, CA, USA", "date": "2024-10-01"},
            },
        ],
        "content": "",
        "reasoning": "",
        "note": "captured output of Qwen2.5-7B-Instruct via transformers (decoded with special tokens); "
        "ends with the <|im_end|> stop token",
    },
    {
        "id": "hermes-qwen-two-calls-after-sentence",
        "dialect": "hermes",
        "family": "Qwen2.5",
        "source": f"{_OLLAMA} tools/tools_test.go TestParser 'qwen two tool calls'",
        "text": (
            "Okay, let's call both tools! "
            '<tool_call>{"name": "get_temperature", "arguments": {"city": "London", "format": "fahrenheit"}}'
            '</tool_call><tool_call>{"name": "get_conditions", "arguments": {"location": '
            '"Tokyo"}}</tool_call>'
        ),
        "tools": ["get_temperature", "get_conditions"],
        "calls": [
            {"name": "get_temperature", "arguments": {"city": "London", "format": "fahrenheit"}},
            {"name": "get_conditions", "arguments": {"location": "Tokyo"}},
        ],
        "content": "Okay, let's call both tools!",
        "reasoning": "",
        "note": "parser-test input (Ollama qwen template); calls without newlines inside the tags",
    },
    {
        "id": "hermes-qwen-unterminated-second-call",
        "dialect": "hermes",
        "family": "Qwen2.5",
        "source": f"{_OLLAMA} tools/tools_test.go TestParser 'qwen empty followed by args'",
        "text": (
            "Let me check the weather. "
            '<tool_call>{"name": "get_conditions", "arguments": {}}</tool_call>'
            '<tool_call>{"name": "get_conditions", "arguments": {"location": "Tokyo"}}'
        ),
        "tools": ["get_conditions"],
        "calls": [
            {"name": "get_conditions", "arguments": {}},
            {"name": "get_conditions", "arguments": {"location": "Tokyo"}},
        ],
        "content": "Let me check the weather.",
        "reasoning": "",
        "note": "parser-test input; the second <tool_call> has no closing </tool_call> (generation stopped); "
        "Ollama still returns both calls; empty arguments object in the first",
    },
    {
        "id": "hermes-qwen3-three-calls-lines",
        "dialect": "hermes",
        "family": "Qwen3",
        "source": f"{_OLLAMA} model/parsers/qwen3_test.go TestQwen3ParserToolCallIndexing",
        "text": (
            '<tool_call>{"name":"first","arguments":{"a":"1"}}</tool_call>\n'
            '<tool_call>{"name":"second","arguments":{"b":"2"}}</tool_call>\n'
            '<tool_call>{"name":"third","arguments":{"c":"3"}}</tool_call>'
        ),
        "tools": ["first", "second", "third"],
        "calls": [
            {"name": "first", "arguments": {"a": "1"}},
            {"name": "second", "arguments": {"b": "2"}},
            {"name": "third", "arguments": {"c": "3"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; compact JSON (no spaces), thinking disabled",
    },
    # No public source found that shows a Hermes/Qwen2.5 <tool_call> body written as a Python dict
    # literal (single quotes, True/None); the closest public reports concern Qwen3-Coder XML
    # parameters (see "qwen3coder-python-literal-params" below) and Granite (langchain-ibm PR #121,
    # no verbatim output).
    # ------------------------------------------------------------------ think (reasoning)
    {
        "id": "think-qwq-prefilled-then-hermes-call",
        "dialect": "think",
        "family": "QwQ-32B",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_hermes_tool_parser.py "
        "NO_STREAM_FUNCTION_OUTPUT (id lei_test_streaming_01)",
        "text": _QWQ_INTERNET_SEARCH,
        "prefilled_think": True,
        "tools": ["internet_search"],
        "calls": [
            {
                "name": "internet_search",
                "arguments": {
                    "question": "5MW燃气轮机设计参数 空气流量 压气机压比 转速 燃烧室出口温度 压气机级数 "
                    "支点布局"
                },
            }
        ],
        "content": "",
        "reasoning": _QWQ_INTERNET_SEARCH.split("</think>")[0].strip(),
        "note": "captured output (test says it was produced with QwQ-32B); the template prefills <think>, "
        "so the text has only </think>; a hermes <tool_call> follows; trailing '\\n\\n ' after the call",
    },
    {
        "id": "think-tng-call-inside-reasoning-ignored",
        "dialect": "think",
        "family": "DeepSeek-TNG-R1T2-Chimera",
        "source": f"{_VLLM} tests/tool_use/test_tng_tool_parser.py MODEL_OUTPUT_WITH_TOOL_CALL_IN_THINK "
        "(id ignore_tool_call_in_think_trace)",
        "text": (
            '<think>Okay, ...<tool_call>\n{"name": "get_current_weather", "arguments": {"location": '
            '"Seattle"}}'
            "\n</tool_call>\n</think>After think\n<tool_call>\n"
            '{"name": "get_current_weather", "arguments": {"location": "Munich"}}\n</tool_call>\nSome suffix'
        ),
        "tools": ["get_current_weather"],
        "calls": [{"name": "get_current_weather", "arguments": {"location": "Munich"}}],
        "content": "After think\n\nSome suffix",
        "reasoning": 'Okay, ...<tool_call>\n{"name": "get_current_weather", "arguments": {"location": '
        '"Seattle"}}'
        "\n</tool_call>",
        "note": "parser-test input; call-shaped <tool_call> inside <think> that must NOT be executed; only "
        "the "
        "Munich call after </think> is real (vLLM's tng parser keeps the think block in content)",
    },
    {
        "id": "think-tng-json-list-in-tool-call",
        "dialect": "think",
        "family": "DeepSeek-TNG-R1T2-Chimera",
        "source": f"{_VLLM} tests/tool_use/test_tng_tool_parser.py MODEL_OUTPUT_WITH_TOOL_CALL_WIKIPEDIA "
        "(id realistic_tool_call)",
        "text": (
            "<think>\nOkay, this is a reasoning trace.\n</think>\n\n<tool_call>\n"
            '[{"name": "Wikipedia", "arguments": {"query": "Joe Biden"}}]\n</tool_call>'
        ),
        "tools": ["Wikipedia"],
        "calls": [{"name": "Wikipedia", "arguments": {"query": "Joe Biden"}}],
        "content": "",
        "reasoning": "Okay, this is a reasoning trace.",
        "note": "parser-test input labelled 'realistic'; the <tool_call> body is a JSON list of calls",
    },
    {
        "id": "think-qwen3-explicit-open-tag-answer",
        "dialect": "think",
        "family": "Qwen3",
        "source": f"{_OLLAMA} model/parsers/qwen3_test.go "
        "TestQwen3ParserThinkingEnabledWithExplicitOpeningTag",
        "text": "<think>\nLet me think...</think>Answer.",
        "tools": [],
        "calls": [],
        "content": "Answer.",
        "reasoning": "Let me think...",
        "note": "parser-test input; model emits its own <think>",
    },
    {
        "id": "think-qwen3-prefilled-answer",
        "dialect": "think",
        "family": "Qwen3",
        "source": f"{_OLLAMA} model/parsers/qwen3_test.go TestQwen3ParserThinkingEnabled",
        "text": "Let me think...</think>Answer.",
        "prefilled_think": True,
        "tools": [],
        "calls": [],
        "content": "Answer.",
        "reasoning": "Let me think...",
        "note": "parser-test input; thinking enabled with <think> opened by the renderer, so only </think> "
        "appears",
    },
    {
        "id": "think-qwen3-call-before-think-close",
        "dialect": "think",
        "family": "Qwen3",
        "source": f"{_OLLAMA} model/parsers/qwen3_test.go "
        "TestQwen3ParserThinkingWithToolCallBeforeThinkingClose",
        "text": (
            "Let me think<tool_call>"
            '{"name":"get_weather","arguments":{"location":"San Francisco","unit":"celsius"}}</tool_call>'
        ),
        "prefilled_think": True,
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "San Francisco", "unit": "celsius"}}],
        "content": "",
        "reasoning": "Let me think",
        "note": "parser-test input; reasoning never closed: Ollama treats <tool_call> as an implicit end of "
        "reasoning and DOES execute it (compare vllm issue #39056: Qwen3.5 emits tool calls inside an "
        "unclosed <think>). Contrast think-tng-call-inside-reasoning-ignored, where </think> comes after",
    },
    {
        "id": "think-r1-distill-prefilled",
        "dialect": "think",
        "family": "DeepSeek-R1",
        "source": f"{_VLLM} tests/reasoning/test_deepseekr1_reasoning_parser.py SIMPLE_REASONING",
        "text": "This is a reasoning section</think>This is the rest",
        "prefilled_think": True,
        "tools": [],
        "calls": [],
        "content": "This is the rest",
        "reasoning": "This is a reasoning section",
        "note": "parser-test input (tokenizer DeepSeek-R1-Distill-Qwen-1.5B); R1 template prefills <think>",
    },
    {
        "id": "think-r1-distill-prefilled-multiline",
        "dialect": "think",
        "family": "DeepSeek-R1",
        "source": f"{_VLLM} tests/reasoning/test_deepseekr1_reasoning_parser.py MULTIPLE_LINES",
        "text": "This\nThat</think>This is the rest\nThat",
        "prefilled_think": True,
        "tools": [],
        "calls": [],
        "content": "This is the rest\nThat",
        "reasoning": "This\nThat",
        "note": "parser-test input",
    },
    # ------------------------------------------------------------------ qwen3_coder (XML)
    {
        "id": "qwen3coder-single",
        "dialect": "qwen3_coder",
        "family": "Qwen3-Coder",
        "source": f"{_VLLM} tests/tool_use/test_qwen3coder_tool_parser.py test_extract_tool_calls "
        "(single_tool)",
        "text": (
            "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
            "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
            "</function>\n</tool_call>"
        ),
        "tools": ["get_current_weather"],
        "calls": [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            }
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input (tokenizer Qwen3-Coder-30B-A3B-Instruct-FP8)",
    },
    {
        "id": "qwen3coder-sentence-then-call",
        "dialect": "qwen3_coder",
        "family": "Qwen3-Coder",
        "source": f"{_VLLM} tests/tool_use/test_qwen3coder_tool_parser.py test_extract_tool_calls "
        "(single_tool_with_content)",
        "text": (
            "Sure! Let me check the weather for you.<tool_call>\n<function=get_current_weather>\n"
            "<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n"
            "<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>"
        ),
        "tools": ["get_current_weather"],
        "calls": [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            }
        ],
        "content": "Sure! Let me check the weather for you.",
        "reasoning": "",
        "note": "parser-test input",
    },
    {
        "id": "qwen3coder-multiline-json-param",
        "dialect": "qwen3_coder",
        "family": "Qwen3-Coder",
        "source": f"{_VLLM} tests/tool_use/test_qwen3coder_tool_parser.py test_extract_tool_calls "
        "(single_tool_multiline_param)",
        "text": (
            "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
            '<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n'
            "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>"
        ),
        "tools": ["calculate_area"],
        "calls": [
            {
                "name": "calculate_area",
                "arguments": {
                    "shape": "rectangle",
                    "dimensions": {"width": 10, "height": 20},
                    "precision": 2,
                },
            }
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; values are typed by the tool schema (dimensions: object, precision: "
        "integer); "
        "the JSON value spans two lines",
    },
    {
        "id": "qwen3coder-two-calls",
        "dialect": "qwen3_coder",
        "family": "Qwen3-Coder",
        "source": f"{_VLLM} tests/tool_use/test_qwen3coder_tool_parser.py test_extract_tool_calls "
        "(parallel_tools)",
        "text": (
            "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
            "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
            "</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n"
            "<parameter=city>\nOrlando\n</parameter>\n<parameter=state>\nFL\n</parameter>\n"
            "<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>"
        ),
        "tools": ["get_current_weather"],
        "calls": [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            },
            {
                "name": "get_current_weather",
                "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"},
            },
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input",
    },
    {
        "id": "qwen3coder-python-literal-params",
        "dialect": "qwen3_coder",
        "family": "Qwen3-Coder",
        "source": "github.com/waybarrios/vllm-mlx/issues/63 (Test: Python Dict Syntax)",
        "text": (
            "<tool_call>\n<function=config>\n<parameter=settings>{'theme': 'dark', 'size': 14}</parameter>\n"
            "</function>\n</tool_call>"
        ),
        "tools": ["config"],
        "calls": [{"name": "config", "arguments": {"settings": {"theme": "dark", "size": 14}}}],
        "content": "",
        "reasoning": "",
        "note": "python dict literal inside a parameter; the issue says Qwen3-Coder 'often' writes Python "
        "literals, but this exact text is the reporter's test input; value on the same line as the tags "
        "(no newlines); expected dict assumes the schema types 'settings' as an object (uncertain)",
    },
    # ------------------------------------------------------------------ llama_json (Llama 3.x)
    {
        "id": "llama31-python-tag-pretty-type-function",
        "dialect": "llama_json",
        "family": "Llama 3.1",
        "source": f"{_LLAMA_MODELS} models/llama3_1/prompt_format.md 'JSON based tool calling' "
        "(same in models/llama3_3/prompt_format.md)",
        "text": (
            "<|python_tag|>{\n"
            '    "type": "function",\n'
            '    "name": "trending_songs",\n'
            '    "parameters": {\n'
            '        "n": "10",\n'
            '        "genre": "all"\n'
            "    }\n"
            "}<|eom_id|>"
        ),
        "tools": ["trending_songs"],
        "calls": [{"name": "trending_songs", "arguments": {"n": "10", "genre": "all"}}],
        "content": "",
        "reasoning": "",
        "note": "model card example ('Model Response Format'); after <|python_tag|>, pretty printed, with "
        '"type": "function", ends with <|eom_id|> because Environment: ipython was set',
    },
    {
        "id": "llama3-json-bare-arguments",
        "dialect": "llama_json",
        "family": "Llama 3.1",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py "
        "test_extract_tool_calls_with_arguments",
        "text": '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
        "tools": ["searchTool"],
        "calls": [{"name": "searchTool", "arguments": {"query": "test query", "limit": 10}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; bare JSON, no <|python_tag|>",
    },
    {
        "id": "llama3-json-semicolon-three",
        "dialect": "llama_json",
        "family": "Llama 3.1",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py "
        "test_extract_tool_calls_multiple_json",
        "text": (
            '{"name": "searchTool", "parameters": {"query": "test1"}}; '
            '{"name": "getOpenIncidentsTool", "parameters": {}}; '
            '{"name": "searchTool", "parameters": {"query": "test2"}}'
        ),
        "tools": ["searchTool", "getOpenIncidentsTool"],
        "calls": [
            {"name": "searchTool", "arguments": {"query": "test1"}},
            {"name": "getOpenIncidentsTool", "arguments": {}},
            {"name": "searchTool", "arguments": {"query": "test2"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; several calls separated by '; '",
    },
    {
        "id": "llama3-json-inside-sentence",
        "dialect": "llama_json",
        "family": "Llama 3.1",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py "
        "test_extract_tool_calls_simple",
        "text": 'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to '
        "know more?",
        "tools": ["getOpenIncidentsTool"],
        "calls": [{"name": "getOpenIncidentsTool", "arguments": {}}],
        "content": "Here is the result:  Would you like to know more?",
        "reasoning": "",
        "note": "parser-test input; JSON call in the middle of text. vLLM's llama3_json parser returns "
        "content=None here; the expected content above is the surrounding text with the call cut out "
        "(two spaces remain) - a judgement call",
    },
    {
        "id": "llama3-json-arguments-key",
        "dialect": "llama_json",
        "family": "Llama 3.1",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py "
        "test_extract_tool_calls_with_arguments_key",
        "text": '{"name": "searchTool", "arguments": {"query": "test"}}',
        "tools": ["searchTool"],
        "calls": [{"name": "searchTool", "arguments": {"query": "test"}}],
        "content": "",
        "reasoning": "",
        "note": 'parser-test input; "arguments" instead of "parameters"',
    },
    # ------------------------------------------------------------------ llama_pythonic (Llama 3.2/3.3/4)
    {
        "id": "llama32-pythonic-two-calls",
        "dialect": "llama_pythonic",
        "family": "Llama 3.2",
        "source": f"{_LLAMA_MODELS} models/llama3_2/text_prompt_format.md 'Zero shot function calling' "
        "(same in models/llama3_3/prompt_format.md)",
        "text": (
            "[get_weather(city='San Francisco', metric='celsius'), "
            "get_weather(city='Seattle', metric='celsius')]<|eot_id|>"
        ),
        "tools": ["get_weather"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}},
            {"name": "get_weather", "arguments": {"city": "Seattle", "metric": "celsius"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "model card example; ends with <|eot_id|>",
    },
    {
        "id": "llama32-pythonic-int-arg",
        "dialect": "llama_pythonic",
        "family": "Llama 3.2",
        "source": f"{_LLAMA_MODELS} models/llama3_2/text_prompt_format.md "
        "'Zero shot function calling with user message'",
        "text": "[get_user_info(user_id=7890, special='black')]<|eot_id|>",
        "tools": ["get_user_info"],
        "calls": [{"name": "get_user_info", "arguments": {"user_id": 7890, "special": "black"}}],
        "content": "",
        "reasoning": "",
        "note": "model card example; integer argument",
    },
    {
        "id": "llama4-pythonic-double-quotes",
        "dialect": "llama_pythonic",
        "family": "Llama 4",
        "source": f"{_LLAMA_MODELS} models/llama4/prompt_format.md 'Zero shot function calling - system "
        "message'",
        "text": '[get_weather(city="San Francisco"), get_weather(city="Seattle")]<|eot|>',
        "tools": ["get_weather"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "San Francisco"}},
            {"name": "get_weather", "arguments": {"city": "Seattle"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "model card example; double-quoted strings; Llama 4 stop token <|eot|>",
    },
    {
        "id": "llama4-pythonic-python-start-tags",
        "dialect": "llama_pythonic",
        "family": "Llama 4",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_llama4_pythonic_tool_parser.py "
        "PYTHON_TAG_FUNCTION_OUTPUT",
        "text": "<|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "LA", "metric": "C"}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; wrapped in <|python_start|>...<|python_end|>",
    },
    {
        "id": "llama-pythonic-python-literals",
        "dialect": "llama_pythonic",
        "family": "Llama 3.2",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_pythonic_tool_parser.py "
        "MORE_TYPES_FUNCTION_OUTPUT (more_types_nonstreaming)",
        "text": (
            "[register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, "
            "role=None, passed_test=True, aliases=['John', 'Johnny'])]"
        ),
        "tools": ["register_user"],
        "calls": [
            {
                "name": "register_user",
                "arguments": {
                    "name": "John Doe",
                    "age": 37,
                    "address": {"city": "San Francisco", "state": "CA"},
                    "role": None,
                    "passed_test": True,
                    "aliases": ["John", "Johnny"],
                },
            }
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; python dict literal, None/True, list",
    },
    # ------------------------------------------------------------------ gemma (Gemma 3)
    {
        "id": "gemma3-tool-code-search",
        "dialect": "gemma",
        "family": "Gemma 3",
        "source": f"{_GEMMA_COOKBOOK} Gemma/[Gemma_3]Function_Calling_with_HF.ipynb (cell 24 output)",
        "text": (
            "```tool_code\n"
            'search(query="Which teams played in the Cricket ICC Champions Trophy 2025 final and who won?")\n'
            "```"
        ),
        "tools": ["search"],
        "calls": [
            {
                "name": "search",
                "arguments": {
                    "query": "Which teams played in the Cricket ICC Champions Trophy 2025 final and who won?"
                },
            }
        ],
        "content": "",
        "reasoning": "",
        "note": "captured notebook output (gemma-3 via transformers); the notebook prints "
        "output.split('model')[-1], so a leading '\\n' and print's trailing '\\n' were trimmed",
    },
    {
        "id": "gemma3-tool-code-after-sentences",
        "dialect": "gemma",
        "family": "Gemma 3",
        "source": f"{_GEMMA_COOKBOOK} Gemma/[Gemma_3]Meme_Generator.ipynb (cell 9 output)",
        "text": (
            "Okay, I'll create a funny meme based on the image provided.\n\n"
            "Here's the meme I'll generate:\n\n"
            "```tool_code\n"
            'generate_meme(image="/content/meme.jpg", top_text="Me when I hear a creak", '
            'middle_text="It could be anything!", bottom_text="Probably just the cat.")\n'
            "```"
        ),
        "tools": ["generate_meme"],
        "calls": [
            {
                "name": "generate_meme",
                "arguments": {
                    "image": "/content/meme.jpg",
                    "top_text": "Me when I hear a creak",
                    "middle_text": "It could be anything!",
                    "bottom_text": "Probably just the cat.",
                },
            }
        ],
        "content": "Okay, I'll create a funny meme based on the image provided.\n\nHere's the meme I'll "
        "generate:",
        "reasoning": "",
        "note": "captured notebook output (gemma_3 via gemma library ChatSampler); print's trailing newline "
        "trimmed",
    },
    {
        "id": "gemma3-tool-code-web-search-preamble",
        "dialect": "gemma",
        "family": "Gemma 3",
        "source": f"{_GEMMA_COOKBOOK} "
        "Gemma/[Gemma_3]Function_Calling_Routing_and_Monitoring_using_Gemma_Google_Genai.ipynb (cell 56 "
        "output)",
        "text": (
            "Okay, I understand. The user is asking a general knowledge question about Messi. Since this "
            "isn't "
            "related to Vibe coding specifically, I should use the `web_search` tool to find information "
            "about "
            'him.\n\n```tool_code\nweb_search(query="who is Messi?")\n```'
        ),
        "tools": ["web_search"],
        "calls": [{"name": "web_search", "arguments": {"query": "who is Messi?"}}],
        "content": "Okay, I understand. The user is asking a general knowledge question about Messi. Since "
        "this "
        "isn't related to Vibe coding specifically, I should use the `web_search` tool to find information "
        "about him.",
        "reasoning": "",
        "note": "captured notebook output; print's trailing newline trimmed; other tools offered in the "
        "notebook "
        "not listed",
    },
    {
        "id": "gemma3-tool-code-assignment-and-print",
        "dialect": "gemma",
        "family": "Gemma 3",
        "source": f"{_GEMMA_COOKBOOK} Gemma/[Gemma_3]Function_Calling_with_HF_document_summarizer.ipynb "
        "(cell 23 output)",
        "text": (
            'Okay, I can help with that. I will read the file "notes.txt" and provide a summary of its '
            "contents.\n\n```tool_code\nsummary = read_file(filename='notes.txt')\nprint(summary)\n```"
        ),
        "tools": ["read_file"],
        "calls": [{"name": "read_file", "arguments": {"filename": "notes.txt"}}],
        "content": 'Okay, I can help with that. I will read the file "notes.txt" and provide a summary of '
        "its "
        "contents.",
        "reasoning": "",
        "note": "captured notebook output; the tool_code block is a small program (assignment + print), not "
        "a "
        "bare call - print is not a tool; leading '\\n' and print's trailing '\\n' trimmed",
    },
    {
        "id": "gemma3-docs-pythonic-list",
        "dialect": "gemma",
        "family": "Gemma 3",
        "source": "https://ai.google.dev/gemma/docs/capabilities/function-calling ('This prompt should "
        "produce "
        "the following response', Python-style prompt)",
        "text": '[get_product_name_by_PID(PID="807ZPKBL9V")]',
        "tools": ["get_product_name_by_PID"],
        "calls": [{"name": "get_product_name_by_PID", "arguments": {"PID": "807ZPKBL9V"}}],
        "content": "",
        "reasoning": "",
        "note": "Google docs example; pythonic list like Llama 3.2, no fence",
    },
    {
        "id": "gemma3-docs-json-parameters",
        "dialect": "gemma",
        "family": "Gemma 3",
        "source": "https://ai.google.dev/gemma/docs/capabilities/function-calling ('This prompt should "
        "produce "
        "the following response', JSON prompt)",
        "text": '{"name": "get_product_name_by_PID", "parameters": {"PID": "807ZPKBL9V"}}',
        "tools": ["get_product_name_by_PID"],
        "calls": [{"name": "get_product_name_by_PID", "arguments": {"PID": "807ZPKBL9V"}}],
        "content": "",
        "reasoning": "",
        "note": 'Google docs example; bare JSON with "parameters" (same shape as Llama 3.1 JSON)',
    },
    # ------------------------------------------------------------------ mistral
    {
        "id": "mistral-prev11-single",
        "dialect": "mistral",
        "family": "Mistral 7B v0.3",
        "source": f"{_VLLM} tests/tool_use/test_mistral_tool_parser.py test_extract_tool_calls "
        "(single_tool_add)",
        "text": '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
        "tools": ["add"],
        "calls": [{"name": "add", "arguments": {"a": 3.5, "b": 4}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input (tokenizer mistralai/Mistral-7B-Instruct-v0.3); pre-v11 JSON list",
    },
    {
        "id": "mistral-prev11-two-calls",
        "dialect": "mistral",
        "family": "Mistral 7B v0.3",
        "source": f"{_VLLM} tests/tool_use/test_mistral_tool_parser.py test_extract_tool_calls_streaming "
        "(multiple_tools)",
        "text": (
            '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", '
            '"arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]'
        ),
        "tools": ["add", "get_current_weather"],
        "calls": [
            {"name": "add", "arguments": {"a": 3.5, "b": 4}},
            {
                "name": "get_current_weather",
                "arguments": {"city": "San Francisco", "state": "CA", "unit": "celsius"},
            },
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; space after [TOOL_CALLS]",
    },
    {
        "id": "mistral-prev11-brackets-in-string",
        "dialect": "mistral",
        "family": "Mistral",
        "source": f"{_SGLANG} test/srt/test_function_call_parser.py "
        "TestMistralDetector.test_detect_and_parse_with_nested_brackets_in_content",
        "text": (
            '[TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"","content":"```\\n'
            "TOOL: Access a weather API or service\\nOBSERVATION: Retrieve the current weather data for the "
            "top "
            "5 populated cities in the US\\nANSWER: The weather in the top 5 populated cities in the US is "
            "as "
            'follows: [City Name] - [Weather Conditions] - [Temperature]\\n```"}}]'
        ),
        "tools": ["make_next_step_decision"],
        "calls": [
            {
                "name": "make_next_step_decision",
                "arguments": {
                    "decision": "",
                    "content": "```\nTOOL: Access a weather API or service\nOBSERVATION: Retrieve the "
                    "current "
                    "weather data for the top 5 populated cities in the US\nANSWER: The weather in the top 5 "
                    "populated cities in the US is as follows: [City Name] - [Weather Conditions] - "
                    "[Temperature]\n```",
                },
            }
        ],
        "content": "",
        "reasoning": "",
        "note": "the test calls it 'the exact problematic text from the original test failure' (a captured "
        "output); square brackets and a ``` fence inside a JSON string; \\n are JSON escapes",
    },
    {
        "id": "mistral-ollama-closing-tag",
        "dialect": "mistral",
        "family": "Mistral",
        "source": f"{_OLLAMA} tools/tools_test.go TestParser 'two tool calls in a list'",
        "text": (
            '[TOOL_CALLS] [{"name": "get_temperature", "arguments": {"city": "London", "format": '
            '"fahrenheit"}}, '
            '{"name": "get_conditions", "arguments": {"location": "Tokyo"}}][/TOOL_CALLS]'
        ),
        "tools": ["get_temperature", "get_conditions"],
        "calls": [
            {"name": "get_temperature", "arguments": {"city": "London", "format": "fahrenheit"}},
            {"name": "get_conditions", "arguments": {"location": "Tokyo"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input following Ollama's mistral template, which closes with [/TOOL_CALLS]",
    },
    {
        "id": "mistral-v11-args-single",
        "dialect": "mistral",
        "family": "Mistral Small 3.2",
        "source": f"{_VLLM} tests/tool_use/test_mistral_tool_parser.py test_extract_tool_calls "
        "(single_tool_weather_args)",
        "text": '[TOOL_CALLS]get_current_weather[ARGS]{"city": "San Francisco", "state": "CA", "unit": '
        '"celsius"}',
        "tools": ["get_current_weather"],
        "calls": [
            {
                "name": "get_current_weather",
                "arguments": {"city": "San Francisco", "state": "CA", "unit": "celsius"},
            }
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; v11 tokenizer [ARGS] separator (Mistral-Small-3.2-24B-Instruct-2506 "
        "tokenizer)",
    },
    {
        "id": "mistral-v11-args-two-calls",
        "dialect": "mistral",
        "family": "Mistral Small 3.2",
        "source": f"{_VLLM} tests/tool_use/test_mistral_tool_parser.py test_extract_tool_calls "
        "(multiple_tool_calls_args)",
        "text": '[TOOL_CALLS]add[ARGS]{"a": 3.5, "b": 4}[TOOL_CALLS]multiply[ARGS]{"a": 3, "b": 6}',
        "tools": ["add", "multiply"],
        "calls": [
            {"name": "add", "arguments": {"a": 3.5, "b": 4}},
            {"name": "multiply", "arguments": {"a": 3, "b": 6}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; v11 [ARGS], one [TOOL_CALLS] per call",
    },
    {
        "id": "mistral-v11-args-after-text",
        "dialect": "mistral",
        "family": "Mistral Small 3.2",
        "source": f"{_VLLM} tests/tool_use/test_mistral_tool_parser.py test_extract_tool_calls "
        "(content_before_tool_args)",
        "text": 'hi[TOOL_CALLS]add[ARGS]{"a": 1, "b": 2}',
        "tools": ["add"],
        "calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}],
        "content": "hi",
        "reasoning": "",
        "note": "parser-test input; v11 [ARGS] after content",
    },
    {
        "id": "mistral-v11-no-args-token",
        "dialect": "mistral",
        "family": "Mistral Small 3.2",
        "source": f"{_VLLM} tests/tool_use/test_mistral_tool_parser.py test_extract_tool_calls "
        "(single_tool_add)",
        "text": '[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
        "tools": ["add_this_and_that"],
        "calls": [{"name": "add_this_and_that", "arguments": {"a": 3.5, "b": 4}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; v11 name{json} form as decoded when [ARGS] is dropped as a special token",
    },
    # ------------------------------------------------------------------ deepseek (V3 / R1 / V3.1)
    {
        "id": "deepseek-v3-two-calls-docstring",
        "dialect": "deepseek",
        "family": "DeepSeek-V3",
        "source": f"{_SGLANG} python/sglang/srt/function_call/deepseekv3_detector.py DeepSeekV3Detector "
        "docstring "
        "(Examples)",
        "text": (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n"
            '```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜>\n'
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n"
            '```json\n{"location": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>'
        ),
        "tools": ["get_current_weather"],
        "calls": [
            {"name": "get_current_weather", "arguments": {"location": "Tokyo"}},
            {"name": "get_current_weather", "arguments": {"location": "Paris"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "documentation example (same text reported as generated text in sglang issue #4379); newline "
        "between the two calls; ends with <｜end▁of▁sentence｜>",
    },
    {
        "id": "deepseek-v3-after-sentence",
        "dialect": "deepseek",
        "family": "DeepSeek-V3",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_deepseekv3_tool_parser.py "
        "surrounding_text_output",
        "text": (
            "Let me check the weather for you."
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
            '```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
        ),
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        "content": "Let me check the weather for you.",
        "reasoning": "",
        "note": "parser-test input (tokenizer deepseek-ai/DeepSeek-V3)",
    },
    {
        "id": "deepseek-v3-parallel",
        "dialect": "deepseek",
        "family": "DeepSeek-V3",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_deepseekv3_tool_parser.py "
        "parallel_tool_calls_output",
        "text": (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
            '```json\n{"city": "Tokyo", "unit": "celsius"}\n```<｜tool▁call▁end｜>'
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>search_hotels\n"
            '```json\n{"location": "Tokyo", "check_in": '
            '"2025-01-15"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
        ),
        "tools": ["get_weather", "search_hotels"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}},
            {"name": "search_hotels", "arguments": {"location": "Tokyo", "check_in": "2025-01-15"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; no newline between calls",
    },
    {
        "id": "deepseek-v31-two-calls-docstring",
        "dialect": "deepseek",
        "family": "DeepSeek-V3.1",
        "source": f"{_SGLANG} python/sglang/srt/function_call/deepseekv31_detector.py DeepSeekV31Detector "
        "docstring (Examples)",
        "text": (
            '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_current_weather<｜tool▁sep｜>{"location": '
            '"Tokyo"}'
            '<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_current_weather<｜tool▁sep｜>{"location": "Paris"}'
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
        ),
        "tools": ["get_current_weather"],
        "calls": [
            {"name": "get_current_weather", "arguments": {"location": "Tokyo"}},
            {"name": "get_current_weather", "arguments": {"location": "Paris"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "documentation example; V3.1 form name<｜tool▁sep｜>{json}, no 'function' prefix, no fence",
    },
    {
        "id": "deepseek-v31-after-text",
        "dialect": "deepseek",
        "family": "DeepSeek-V3.1",
        "source": f"{_VLLM} tests/tool_use/test_deepseekv31_tool_parser.py test_extract_tool_calls_with_tool",
        "text": (
            "normal text<｜tool▁calls▁begin｜>"
            '<｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
        ),
        "tools": ["foo"],
        "calls": [{"name": "foo", "arguments": {"x": 1}}],
        "content": "normal text",
        "reasoning": "",
        "note": "parser-test input (tokenizer deepseek-ai/DeepSeek-V3.1)",
    },
    # No public source found showing a DeepSeek-R1 output with </think> followed by
    # <｜tool▁calls▁begin｜> with the real fullwidth tokens (Ollama's tools_test.go 'deepseek' case
    # uses ASCII '|' in <|tool▁calls▁begin|>, which is not what the model emits).
    # ------------------------------------------------------------------ harmony (gpt-oss)
    {
        "id": "harmony-analysis-then-final",
        "dialect": "harmony",
        "family": "gpt-oss",
        "source": "github.com/openai/harmony docs/format.md 'Example output' (also OpenAI cookbook "
        "'OpenAI Harmony Response Format')",
        "text": (
            '<|channel|>analysis<|message|>User asks: "What is 2 + 2?" Simple arithmetic. Provide '
            "answer.<|end|>\n"
            "<|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>"
        ),
        "tools": [],
        "calls": [],
        "content": "2 + 2 = 4.",
        "reasoning": 'User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.',
        "note": "documentation example; the output starts after the prompt's '<|start|>assistant'; the "
        "newline "
        "after <|end|> is in the doc's code block (a tokenized stream would not have it)",
    },
    {
        "id": "harmony-analysis-then-function-call",
        "dialect": "harmony",
        "family": "gpt-oss",
        "source": "github.com/openai/harmony docs/format.md 'Receiving tool calls'",
        "text": (
            "<|channel|>analysis<|message|>Need to use function get_weather.<|end|><|start|>assistant"
            '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location":"San '
            'Francisco"}'
            "<|call|>"
        ),
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "San Francisco"}}],
        "content": "",
        "reasoning": "Need to use function get_weather.",
        "note": "documentation example; recipient in the channel part of the header, then ' "
        "<|constrain|>json'",
    },
    {
        "id": "harmony-preamble-then-call",
        "dialect": "harmony",
        "family": "gpt-oss",
        "source": "github.com/openai/harmony docs/format.md 'Preambles'",
        "text": (
            "<|channel|>analysis<|message|>{long chain of "
            "thought}<|end|><|start|>assistant<|channel|>commentary"
            "<|message|>**Action plan**:\n"
            "1. Generate an HTML file\n"
            "2. Generate a JavaScript for the Node.js server\n"
            "3. Start the server\n"
            "---\n"
            "Will start executing the plan step by step<|end|><|start|>assistant<|channel|>commentary "
            'to=functions.generate_file<|constrain|>json<|message|>{"template": "basic_html", "path": '
            '"index.html"}'
            "<|call|>"
        ),
        "tools": ["generate_file"],
        "calls": [{"name": "generate_file", "arguments": {"template": "basic_html", "path": "index.html"}}],
        "content": "**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js "
        "server\n"
        "3. Start the server\n---\nWill start executing the plan step by step",
        "reasoning": "{long chain of thought}",
        "note": "documentation example ('{long chain of thought}' is the doc's placeholder); commentary "
        "message "
        "without recipient is a user-visible preamble; no space before <|constrain|>",
    },
    # ------------------------------------------------------------------ granite
    {
        "id": "granite3-token-single",
        "dialect": "granite",
        "family": "Granite 3.0",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_granite_tool_parser.py "
        "test_granite_token_prefix_format",
        "text": '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; Granite 3.0 special token <|tool_call|>",
    },
    {
        "id": "granite3-token-two-pretty",
        "dialect": "granite",
        "family": "Granite 3.0",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_granite_tool_parser.py "
        "parallel_tool_calls_output",
        "text": (
            "<|tool_call|> [\n"
            '  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n'
            '  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n'
            "]"
        ),
        "tools": ["get_weather", "get_time"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Tokyo"}},
            {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; list spread over lines",
    },
    {
        "id": "granite31-string-prefix",
        "dialect": "granite",
        "family": "Granite 3.1",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_granite_tool_parser.py "
        "test_granite_string_prefix_format",
        "text": '<tool_call> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; Granite 3.1 writes <tool_call> as plain text followed by a JSON list "
        "and no closing tag (unlike hermes)",
    },
    {
        "id": "granite4-double-encoded-arguments",
        "dialect": "granite",
        "family": "Granite 4.0",
        "source": "github.com/vllm-project/vllm/pull/54964 ([Bugfix][Frontend] Stop double-encoding tool "
        "call "
        "arguments), description",
        "text": r'<tool_call>{"name": "get_db_config", "arguments": "{\n  \"param\": '
        r'\"max_connections\"\n}"}</tool_call>',
        "tools": ["get_db_config"],
        "calls": [{"name": "get_db_config", "arguments": {"param": "max_connections"}}],
        "content": "",
        "reasoning": "",
        "note": "PR says 'Granite 4 models emit tool call arguments already serialized as a JSON string'; "
        "double-encoded JSON-string arguments, decoded dict given; hermes-style closing tag",
    },
    # ------------------------------------------------------------------ plain (must stay text)
    {
        "id": "plain-call-shaped-json-unknown-tool",
        "dialect": "plain",
        "family": "any (Ollama json template)",
        "source": f"{_OLLAMA} tools/tools_test.go TestParser 'json not a tool call'",
        "text": '{"name": "search", "arguments": {"query": "What is the capital of Canada?"}}',
        "tools": ["get_temperature", "get_conditions", "say_hello", "say_hello_world", "get_address", "add"],
        "calls": [],
        "content": '{"name": "search", "arguments": {"query": "What is the capital of Canada?"}}',
        "reasoning": "",
        "note": "parser-test input; name/arguments JSON naming 'search', which is not an offered tool: stays "
        "text "
        "('tools' here lists the offered tools, none of which is used)",
    },
    {
        "id": "plain-json-list-without-arguments",
        "dialect": "plain",
        "family": "Granite",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_granite_tool_parser.py "
        "malformed_input_outputs ('JSON but not tool call format')",
        "text": 'Some text [{"name": "func"}]',
        "tools": [],
        "calls": [],
        "content": 'Some text [{"name": "func"}]',
        "reasoning": "",
        "note": "parser-test input; JSON with a name key but no arguments and no marker",
    },
    {
        "id": "plain-llama-no-call",
        "dialect": "plain",
        "family": "Llama 3.1",
        "source": f"{_VLLM} tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py "
        "test_extract_tool_calls_no_json",
        "text": "This is just some text without any tool calls",
        "tools": ["searchTool", "getOpenIncidentsTool"],
        "calls": [],
        "content": "This is just some text without any tool calls",
        "reasoning": "",
        "note": "parser-test input; tools offered in the same test module",
    },
    {
        "id": "plain-qwen25-final-answer",
        "dialect": "plain",
        "family": "Qwen2.5",
        "source": "github.com/QwenLM/Qwen3 docs/source/framework/function_call.md @5e01d11 (final response "
        "after "
        "tool results, 'The output_text should be like')",
        "text": (
            "The current temperature in San Francisco is approximately 26.1°C. Tomorrow, on October 1, 2024, "
            "the temperature is expected to be around 25.9°C.<|im_end|>"
        ),
        "tools": ["get_current_temperature", "get_temperature_date"],
        "calls": [],
        "content": "The current temperature in San Francisco is approximately 26.1°C. Tomorrow, on October "
        "1, "
        "2024, the temperature is expected to be around 25.9°C.",
        "reasoning": "",
        "note": "captured output (Qwen2.5-7B-Instruct); answer after tool results, ends with <|im_end|>",
    },
    # ------------------------------------------------------------------ unknown formats (issue 34 B)
    # Families Helena has no module for: their markup is read by its words (_fallback, _payload).
    {
        "id": "minimax-m2-invoke-after-text",
        "dialect": "invoke_xml",
        "family": "MiniMax-M2",
        "source": f"{_VLLM} tests/tool_parsers/test_minimax_m2_tool_parser.py "
        "TestContentStreaming.test_content_before_tool_call",
        "text": 'Let me check. <minimax:tool_call><invoke name="get_weather"><parameter name="city">Seattle'
        "</parameter></invoke></minimax:tool_call>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Seattle"}}],
        "content": "Let me check.",
        "reasoning": "",
        "note": "parser-test input; namespaced call tag around invoke/parameter XML",
    },
    {
        "id": "minimax-m2-two-invokes",
        "dialect": "invoke_xml",
        "family": "MiniMax-M2",
        "source": f"{_VLLM} tests/tool_parsers/test_minimax_m2_tool_parser.py "
        "TestMultipleInvokes.test_two_invokes_incremental",
        "text": '<minimax:tool_call><invoke name="search_web"><parameter '
        'name="query">OpenAI</parameter></invoke>'
        '<invoke name="search_web"><parameter name="query">Gemini</parameter></invoke></minimax:tool_call>',
        "tools": ["search_web"],
        "calls": [
            {"name": "search_web", "arguments": {"query": "OpenAI"}},
            {"name": "search_web", "arguments": {"query": "Gemini"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; two calls of one tool in one block",
    },
    {
        "id": "step3-steptml-invoke-between-text",
        "dialect": "invoke_xml",
        "family": "Step3",
        "source": f"{_VLLM} tests/tool_parsers/test_step3_tool_parser.py surrounding_text_output",
        "text": "Let me check the weather for you.\n\n<｜tool_calls_begin｜><｜tool_call_begin｜>"
        '<steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter>'
        "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>\n\nI'll get that information.",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        "content": "Let me check the weather for you.\n\nI'll get that information.",
        "reasoning": "",
        "note": "parser-test input; <｜tool_calls_begin｜> without DeepSeek's ▁, namespaced invoke inside",
    },
    {
        "id": "deepseek-v32-dsml-after-text",
        "dialect": "invoke_xml",
        "family": "DeepSeek V3.2",
        "source": f"{_VLLM} tests/tool_parsers/test_deepseekv32_tool_parser.py "
        "TestExtractToolCalls.test_content_before_tool_call (build_tool_call)",
        "text": "Sure, let me check! <｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
        '<｜DSML｜parameter name="location" string="true">NYC</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        "</｜DSML｜function_calls>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "NYC"}}],
        "content": "Sure, let me check!",
        "reasoning": "",
        "note": "parser-test input; |DSML| namespace on every tag",
    },
    {
        "id": "seed-oss-think-then-call",
        "dialect": "reasoning_markers",
        "family": "Seed-OSS-36B",
        "source": f"{_VLLM} tests/tool_parsers/test_seed_oss_tool_parser.py test_extract_tool_calls "
        "(tool_call_512_thinkg_budget)",
        "text": _SEED_512,
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Barcelona, Spain"}}],
        "content": "",
        "reasoning": _between(_SEED_512, "<seed:think>", "</seed:think>"),
        "note": "captured Seed-OSS output (the test tokenizes it with the real tokenizer); <seed:think> with "
        "nested <seed:cot_budget_reflect> and a stray closer; vLLM's tool parser leaves the reasoning in "
        "content, ours separates it",
    },
    {
        "id": "seed-oss-call-format-inside-reasoning",
        "dialect": "reasoning_markers",
        "family": "Seed-OSS-36B",
        "source": f"{_VLLM} tests/tool_parsers/test_seed_oss_tool_parser.py test_extract_tool_calls "
        "(tool_call_unlimited_thinking_budget)",
        "text": _SEED_UNLIMITED,
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Barcelona, Spain", "unit": "celsius"}}],
        "content": "",
        "reasoning": _between(_SEED_UNLIMITED, "<seed:think>", "</seed:think>"),
        "note": "captured Seed-OSS output; the reasoning writes the call's markup itself: reasoning, not a "
        "call",
    },
    {
        "id": "kimi-k2-section-after-text",
        "dialect": "kimi",
        "family": "Kimi-K2-Instruct",
        "source": f"{_VLLM} tests/tool_parsers/test_kimi_k2_tool_parser.py test_extract_tool_calls "
        "(single_tool_call)",
        "text": "I'll check. " + _kimi(("functions.get_weather:0", '{"city": "Beijing"}')),
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Beijing"}}],
        "content": "I'll check.",
        "reasoning": "",
        "note": "parser-test input; <|…section_begin|> tokens, name as functions.NAME:index",
    },
    {
        "id": "kimi-k2-parallel",
        "dialect": "kimi",
        "family": "Kimi-K2-Instruct",
        "source": f"{_VLLM} tests/tool_parsers/test_kimi_k2_tool_parser.py test_extract_tool_calls "
        "(parallel_tool_calls)",
        "text": "Compare weather. " + _kimi(("functions.get_weather:0", '{"city": "Beijing"}'),
                                          ("functions.get_weather:1", '{"city": "Shanghai"}')),
        "tools": ["get_weather"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Beijing"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai"}},
        ],
        "content": "Compare weather.",
        "reasoning": "",
        "note": "parser-test input",
    },
    {
        "id": "glm45-think-text-call",
        "dialect": "glm",
        "family": "GLM-4.5",
        "source": f"{_VLLM} tests/tool_parsers/test_glm4_moe_tool_parser.py "
        "test_extract_tool_calls_with_thinking_tags",
        "text": "<think>I want to get the weather.</think>\n\nI will help you get the "
        "weather.\n<tool_call>get_weather\n"
        "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n"
        "<arg_value>2025-08-01</arg_value>\n</tool_call>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Beijing", "date": "2025-08-01"}}],
        "content": "I will help you get the weather.",
        "reasoning": "I want to get the weather.",
        "note": "parser-test input; <tool_call>NAME then arg_key/arg_value pairs (vLLM keeps the <think> "
        "block "
        "in content, its reasoning parser takes it out)",
    },
    {
        "id": "glm45-two-calls-text-between",
        "dialect": "glm",
        "family": "GLM-4.5",
        "source": f"{_VLLM} tests/tool_parsers/test_glm4_moe_tool_parser.py "
        f"test_extract_tool_calls_mixed_content",
        "text": "I will help you get the weather info.\n\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
        "<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n"
        "</tool_call>\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n<tool_call>get_weather\n"
        "<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n<arg_key>date</arg_key>\n"
        "<arg_value>2025-08-01</arg_value>\n</tool_call>",
        "tools": ["get_weather"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Beijing", "date": "2025-08-01"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai", "date": "2025-08-01"}},
        ],
        "content": "I will help you get the weather info.\n\nmeaningwhile, I will also check the weather "
        "in Shanghai.",
        "reasoning": "",
        "note": "parser-test input; vLLM's parser keeps only the text before the first call as content, the "
        "sentence between the calls is visibly there and ours keeps it",
    },
    {
        "id": "laguna-user-tag-around-json-call",
        "dialect": "unknown_markup",
        "family": "Laguna",
        "source": f"{_OLLAMA} model/parsers/laguna_test.go "
        "TestLagunaParserUserTaggedJSONToolCallWithLeadingContent",
        "text": "I'll run git diff for you.<user>\n{\"name\":\"bash\",\"arguments\":{\"command\":\"git "
        "diff main\"}}\n"
        "</user>",
        "tools": ["bash"],
        "calls": [{"name": "bash", "arguments": {"command": "git diff main"}}],
        "content": "I'll run git diff for you.",
        "reasoning": "",
        "note": "parser-test input (Poolside Laguna); an unrelated tag around a call of an offered tool",
    },
    {
        "id": "laguna-user-tag-around-arg-key-call",
        "dialect": "unknown_markup",
        "family": "Laguna",
        "source": f"{_OLLAMA} model/parsers/laguna_test.go "
        f"TestLagunaParserUserTaggedToolAliasWithLeadingContent",
        "text": "I'll read the file for you.\n<user>read\n<arg_key>path</arg_key>\n"
        "<arg_value>/Users/test/code/myproject/go.mod</arg_value>\n</user>",
        "tools": ["read"],
        "calls": [{"name": "read", "arguments": {"path": "/Users/test/code/myproject/go.mod"}}],
        "content": "I'll read the file for you.",
        "reasoning": "",
        "note": "parser-test input; the tool's name is also a word of the sentence before (prose, shown)",
    },
    {
        "id": "laguna-user-tag-not-a-call",
        "dialect": "plain",
        "family": "Laguna",
        "source": f"{_OLLAMA} model/parsers/laguna_test.go TestLagunaParserUserTaggedNonToolContent",
        "text": "<user>hello</user>",
        "tools": ["get_weather"],
        "calls": [],
        "content": "<user>hello</user>",
        "reasoning": "",
        "note": "parser-test input; an unknown tag around prose stays text, as Ollama keeps it",
    },
    {
        "id": "laguna-duplicated-call-runs-once",
        "dialect": "echo",
        "family": "Laguna",
        "source": f"{_OLLAMA} model/parsers/laguna_test.go TestLagunaParserIgnoresDuplicatedNestedToolCall",
        "text": "<tool_call>skill\n{\"name\":\"git-diff-review\"}\n"
        "<tool_call>skill\n{\"name\":\"git-diff-review\"}</tool_call>",
        "tools": ["skill"],
        "calls": [{"name": "skill", "arguments": {"name": "git-diff-review"}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; the model writes its call a second time right after the first: one call "
        "(Ollama expects one too); NAME\\n{arguments} inside <tool_call>",
    },
    {
        "id": "nemotron-toolcall-after-text",
        "dialect": "unknown_markup",
        "family": "Nemotron",
        "source": f"{_VLLM} tests/tool_parsers/test_nemotron_json_tool_parser.py "
        "test_extract_tool_calls_from_nemotron_array",
        "text": 'Let me check that.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo", '
        '"unit": "celsius"}}]</TOOLCALL>',
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}],
        "content": "Let me check that.",
        "reasoning": "",
        "note": "parser-test input; upper-case call tag",
    },
    {
        "id": "longcat-call-between-text",
        "dialect": "unknown_markup",
        "family": "LongCat-Flash",
        "source": f"{_VLLM} tests/tool_parsers/test_longcat_tool_parser.py surrounding_text_output",
        "text": "Let me check the weather for you.\n<longcat_tool_call>{\"name\": \"get_weather\", "
        "\"arguments\": {\"city\": \"Tokyo\"}}</longcat_tool_call>\nHere is the result.",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        "content": "Let me check the weather for you.\nHere is the result.",
        "reasoning": "",
        "note": "parser-test input; a prefixed call tag",
    },
    {
        "id": "lfm2-call-after-text",
        "dialect": "unknown_markup",
        "family": "LFM2",
        "source": f"{_OLLAMA} model/parsers/lfm2_test.go (\"I'll check the weather.\" tool call)",
        "text": "I'll check the "
        "weather.<|tool_call_start|>[get_weather(location=\"Paris\")]<|tool_call_end|>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
        "content": "I'll check the weather.",
        "reasoning": "",
        "note": "parser-test input; a pythonic call list between start/end tokens",
    },
    {
        "id": "lfm2-think-text-call",
        "dialect": "unknown_markup",
        "family": "LFM2",
        "source": f"{_OLLAMA} model/parsers/lfm2_test.go (thinking, then \"I'll get that for you.\" and a "
        f"call)",
        "text": "<think>Let me check the weather...</think>I'll get that for you.<|tool_call_start|>"
        "[get_weather(location=\"Paris\")]<|tool_call_end|>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
        "content": "I'll get that for you.",
        "reasoning": "Let me check the weather...",
        "note": "parser-test input",
    },
    {
        "id": "cohere-command-action-prefilled-thinking",
        "dialect": "unknown_markup",
        "family": "Command A Reasoning",
        "source": f"{_OLLAMA} model/parsers/cohere_test.go TestCohereParseToolCall",
        "text": "plan<|END_THINKING|><|START_ACTION|>[\n"
        '    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}},'
        '    {"tool_call_id": "1", "tool_name": "get_time", "parameters": {}}'
        "\n]<|END_ACTION|>",
        "tools": ["get_weather", "get_time"],
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Paris"}},
            {"name": "get_time", "arguments": {}},
        ],
        "content": "",
        "reasoning": "plan",
        "prefilled_think": True,
        "note": "parser-test input (the test's chunks joined); the template opens <|START_THINKING|>, the "
        "output starts inside the reasoning and closes it with <|END_THINKING|>",
    },
    {
        "id": "cohere-command-thinking-then-text",
        "dialect": "wrapper",
        "family": "Command A Reasoning",
        "source": f"{_OLLAMA} model/parsers/cohere_test.go TestCohereParseThinkingThenText",
        "text": "Let me think about this.<|END_THINKING|><|START_TEXT|>Hello world!<|END_TEXT|>",
        "tools": [],
        "calls": [],
        "content": "Hello world!",
        "reasoning": "Let me think about this.",
        "prefilled_think": True,
        "note": "parser-test input (chunks joined); the answer wrapped in <|START_TEXT|>…<|END_TEXT|>",
    },
    {
        "id": "llamacpp-hermes-tool-tag",
        "dialect": "unknown_markup",
        "family": "Hermes 2 Pro",
        "source": f"{_LLAMA_CPP} tests/test-chat.cpp (COMMON_CHAT_FORMAT_HERMES_2_PRO, \"<tool>\")",
        "text": '<tool>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</tool>',
        "tools": ["special_function"],
        "calls": [{"name": "special_function", "arguments": {"arg1": 1}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; one of the tags llama.cpp's Hermes parser accepts around a call",
    },
    {
        "id": "llamacpp-hermes-response-tag",
        "dialect": "wrapper",
        "family": "Hermes 2 Pro",
        "source": f"{_LLAMA_CPP} tests/test-chat.cpp (COMMON_CHAT_FORMAT_HERMES_2_PRO, \"<response>\")",
        "text": '<response>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</response>',
        "tools": ["special_function"],
        "calls": [{"name": "special_function", "arguments": {"arg1": 1}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; a wrapper tag around the whole answer, here a call",
    },
    {
        "id": "llamacpp-hermes-function-name-attribute",
        "dialect": "unknown_markup",
        "family": "Hermes 2 Pro",
        "source": f"{_LLAMA_CPP} tests/test-chat.cpp (COMMON_CHAT_FORMAT_HERMES_2_PRO, "
        "'<function name=\"special_function\">')",
        "text": '<function name="special_function">\n{"arg1": 1}\n</function>',
        "tools": ["special_function"],
        "calls": [{"name": "special_function", "arguments": {"arg1": 1}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input",
    },
    {
        "id": "gemma4-call-after-text",
        "dialect": "gemma4",
        "family": "Gemma 4",
        "source": f"{_OLLAMA} model/parsers/gemma4_test.go (content_then_tool_call)",
        "text": 'Let me check that for '
        'you.<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>',
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
        "content": "Let me check that for you.",
        "reasoning": "",
        "note": "parser-test input; strings between <|\"|> tokens, bare keys",
    },
    {
        "id": "gemma4-thought-then-call",
        "dialect": "gemma4",
        "family": "Gemma 4",
        "source": f"{_OLLAMA} model/parsers/gemma4_test.go (thinking_then_tool_call)",
        "text": "<|channel>thought\nI need to check the weather<channel|><|tool_call>call:get_weather"
        '{location:<|"|>Paris<|"|>}<tool_call|>',
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
        "content": "",
        "reasoning": "I need to check the weather",
        "note": "parser-test input; the reasoning channel's first line names it (\"thought\")",
    },
    {
        "id": "gemma4-channel-then-answer",
        "dialect": "gemma4",
        "family": "Gemma 4",
        "source": f"{_OLLAMA} model/parsers/gemma4_test.go (thinking_then_content)",
        "text": "<|channel>thought\nLet me think about this...<channel|>The answer is 42.",
        "tools": [],
        "calls": [],
        "content": "The answer is 42.",
        "reasoning": "Let me think about this...",
        "note": "parser-test input",
    },
    {
        "id": "gemma4-bare-call-after-channel",
        "dialect": "gemma4",
        "family": "Gemma 4",
        "source": f"{_VLLM} tests/tool_parsers/test_gemma4_regex_and_bare_calls.py "
        "test_bare_call_after_thought_channel",
        "text": "<|channel>thought\nI need to read the entry source file to inspect the crash "
        "point.\n<channel|>"
        'call:bash{command:<|"|>cat /work/src/entry.c<|"|>}',
        "tools": ["bash"],
        "calls": [{"name": "bash", "arguments": {"command": "cat /work/src/entry.c"}}],
        "content": "",
        "reasoning": "I need to read the entry source file to inspect the crash point.",
        "note": "parser-test input; the model dropped <|tool_call>: a bare call:NAME{…} after its reasoning",
    },
    {
        "id": "functiongemma-call-after-text",
        "dialect": "gemma4",
        "family": "FunctionGemma",
        "source": f"{_OLLAMA} model/parsers/functiongemma_test.go (content_before_tool_call, chunks joined)",
        "text": "Let me "
        "check.<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        "content": "Let me check.",
        "reasoning": "",
        "note": "parser-test input; strings between <escape> tokens",
    },
    {
        "id": "apertus-single-key-object-after-text",
        "dialect": "single_key_json",
        "family": "Apertus",
        "source": f"{_VLLM} tests/tool_parsers/test_apertus_tool_parser.py test_text_before_tool_call",
        "text": 'Let me check the weather for you. <|tools_prefix|>[{"get_weather": {"location": "Paris"}}]'
        "<|tools_suffix|>",
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
        "content": "Let me check the weather for you.",
        "reasoning": "",
        "note": "parser-test input; an object whose single key is the tool's name",
    },
    {
        "id": "apertus-two-single-key-objects",
        "dialect": "single_key_json",
        "family": "Apertus",
        "source": f"{_VLLM} tests/tool_parsers/test_apertus_tool_parser.py test_multiple_tool_calls",
        "text": '<|tools_prefix|>[{"get_weather": {"location": "London"}}, {"get_time": {"location": '
        '"London"}}]'
        "<|tools_suffix|>",
        "tools": ["get_weather", "get_time"],
        "calls": [
            {"name": "get_weather", "arguments": {"location": "London"}},
            {"name": "get_time", "arguments": {"location": "London"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input",
    },
    {
        "id": "gemma3-1b-pythonic-lines-bfcl",
        "dialect": "pythonic_lines",
        "family": "Gemma 3 1B",
        "source": "github.com/HuanzhiMao/BFCL-Result 2025-04-25/result/google_gemma-3-1b-it/"
        "BFCL_v3_live_parallel_result.json (live_parallel_1-0-1)",
        "text": "get_current_weather(location='Boston, MA')\nget_current_weather(location='San Francisco, "
        "CA')",
        "tools": ["get_current_weather"],
        "calls": [
            {"name": "get_current_weather", "arguments": {"location": "Boston, MA"}},
            {"name": "get_current_weather", "arguments": {"location": "San Francisco, CA"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "captured output (BFCL run of google/gemma-3-1b-it); calls one a line without list brackets",
    },
    {
        "id": "gemma3-1b-pythonic-lines-bfcl-hotel",
        "dialect": "pythonic_lines",
        "family": "Gemma 3 1B",
        "source": "github.com/HuanzhiMao/BFCL-Result 2025-04-25/result/google_gemma-3-1b-it/"
        "BFCL_v3_live_parallel_result.json (live_parallel_10-6-0)",
        "text": "hotel_booking_book(hotel_name='Sheraton Hotel', location='New York', check_in='2022-05-01', "
        "check_out='2022-05-05', adults=2, children=1)\nhotel_booking_book(hotel_name='Marriott', "
        "location='Los Angeles', check_in='2022-06-01', check_out='2022-06-10', adults=1, children=2)",
        "tools": ["hotel_booking_book"],
        "calls": [
            {"name": "hotel_booking_book", "arguments": {
                "hotel_name": "Sheraton Hotel", "location": "New York", "check_in": "2022-05-01",
                "check_out": "2022-05-05", "adults": 2, "children": 1}},
            {"name": "hotel_booking_book", "arguments": {
                "hotel_name": "Marriott", "location": "Los Angeles", "check_in": "2022-06-01",
                "check_out": "2022-06-10", "adults": 1, "children": 2}},
        ],
        "content": "",
        "reasoning": "",
        "note": "captured output (BFCL run of google/gemma-3-1b-it)",
    },
    {
        "id": "olmo3-function-calls-lines",
        "dialect": "pythonic_lines",
        "family": "Olmo 3",
        "source": f"{_OLLAMA} model/parsers/olmo3_test.go TestOlmo3Parser (multiple tool calls)",
        "text": '<function_calls>get_weather(location="San Francisco")\nget_weather(location="New York")'
        "</function_calls>",
        "tools": ["get_weather"],
        "calls": [
            {"name": "get_weather", "arguments": {"location": "San Francisco"}},
            {"name": "get_weather", "arguments": {"location": "New York"}},
        ],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; pythonic calls one a line inside <function_calls>",
    },
    {
        "id": "olmo3-json-literals",
        "dialect": "pythonic_lines",
        "family": "Olmo 3",
        "source": f"{_VLLM} tests/tool_parsers/test_olmo3_tool_parser.py "
        f"(more_types_nonstreaming_json_literals)",
        "text": "<function_calls>register_user(name='John Doe', age=37, address={'city': 'San Francisco', "
        "'state': 'CA'}, role=null, passed_test=true, aliases=['John', 'Johnny'])</function_calls>",
        "tools": ["register_user"],
        "calls": [{"name": "register_user", "arguments": {
            "name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": None,
            "passed_test": True, "aliases": ["John", "Johnny"]}}],
        "content": "",
        "reasoning": "",
        "note": "parser-test input; JSON's true/null in a Python call",
    },
    {
        "id": "gptoss-bedrock-reasoning-tag",
        "dialect": "reasoning_markers",
        "family": "gpt-oss-20b",
        "source": "github.com/Mirascope/mirascope "
        "python/tests/e2e/input/snapshots/test_bedrock_openai_provider/"
        "bedrock_openai_gpt_oss_20b_1_0_snapshots.py",
        "text": "<reasoning>The user asks: \"What is 4200 + 42?\" They likely expect the sum 4242. That's "
        "straightforward. No special context. Provide answer. It's 4242.</reasoning>4200 + 42 equals "
        "**4242**.",
        "tools": [],
        "calls": [],
        "content": "4200 + 42 equals **4242**.",
        "reasoning": "The user asks: \"What is 4200 + 42?\" They likely expect the sum 4242. That's "
        "straightforward. No special context. Provide answer. It's 4242.",
        "note": "captured output (Amazon Bedrock's OpenAI-compatible endpoint, openai.gpt-oss-20b-1:0): the "
        "server writes the analysis channel as <reasoning>…</reasoning> into the content",
    },
    {
        "id": "kimi-angle-think",
        "dialect": "reasoning_markers",
        "family": "Kimi-VL",
        "source": f"{_SGLANG} test/srt/test_reasoning_parser.py "
        f"TestKimiDetector.test_detect_and_parse_kimi_format",
        "text": "◁think▷Let me consider this carefully◁/think▷The answer is 42.",
        "tools": [],
        "calls": [],
        "content": "The answer is 42.",
        "reasoning": "Let me consider this carefully",
        "note": "parser-test input; Kimi's ◁think▷ delimiters",
    },
    {
        "id": "granite32-thought-process-sentences",
        "dialect": "reasoning_markers",
        "family": "Granite 3.2",
        "source": f"{_VLLM} tests/reasoning/test_granite_reasoning_parser.py SIMPLE_REASONING",
        "text": "Here is my thought process:This is a reasoning sectionHere is my response:This is the rest",
        "tools": [],
        "calls": [],
        "content": "This is the rest",
        "reasoning": "This is a reasoning section",
        "note": "parser-test input; reasoning introduced by a sentence instead of a tag",
    },
    {
        "id": "phi4-mini-functools-between-text",
        "dialect": "unknown_markup",
        "family": "Phi-4-mini",
        "source": f"{_VLLM} tests/tool_parsers/test_phi4mini_tool_parser.py surrounding_text_output",
        "text": 'Let me check the weather for you.\nfunctools[{"name": "get_weather", "arguments": '
        '{"city": "Tokyo"}}]\nWould you like to know more?',
        "tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        "content": "Let me check the weather for you.\nWould you like to know more?",
        "reasoning": "",
        "note": "parser-test input; the word functools (one token) introduces the call list; vLLM's parser "
        "drops the surrounding text when a call is present, it is visibly there and ours keeps it",
    },
    {
        "id": "hunyuan-think-answer-wrapper",
        "dialect": "wrapper",
        "family": "Hunyuan-A13B",
        "source": f"{_VLLM} tests/reasoning/test_hunyuan_reasoning_parser.py SIMPLE_REASONING",
        "text": "<think>\nThis is a reasoning section\n</think>\n<answer>\nThis is the rest\n</answer>",
        "tools": [],
        "calls": [],
        "content": "This is the rest",
        "reasoning": "This is a reasoning section",
        "note": "parser-test input; the whole answer wrapped in <answer>…</answer>",
    },
]

# Sources looked at but not used:
# - meta-llama/llama-models prompt_format.md: builtin-tool calls '<|python_tag|>brave_search.call(query=...)'
#   and code-interpreter output (not a function-call dialect here), and the custom
#   '<function=trending_songs>{"n": 10}</function>' format (no matching dialect in this list).
# - QwenLM/Qwen3 docs (current): Qwen3 think-mode tool calls are shown only parsed (reasoning_content /
#   function_call fields via Qwen-Agent), not as raw text.
# - vLLM tests/tool_use/test_openai_tool_parser.py and tests/reasoning/test_gptoss_reasoning_parser.py:
#   harmony texts are built with openai_harmony / string pieces ("This is reasoning"), not raw outputs.
# - vLLM tests/tool_use/test_hermes_tool_parser.py: live-server test, no raw text.
# - vLLM tests/entrypoints/openai/tool_parsers/test_granite4_tool_parser.py: inputs built with json.dumps
#   (incl. a JSON-string argument "to test granite behavior"), no verbatim text.
# - Ollama tools/tools_test.go 'deepseek': uses ASCII '|' in <|tool▁calls▁begin|>, not the real token.
# - vllm issues #28219 (R1-Distill-Llama JSON in content), #39056 / #42021 (Qwen3.5 calls inside <think>),
#   #21544 (Qwen3-Coder hermes failure), sglang issue #4379, HF transformers issue #40620 (gpt-oss stream):
#   raw text only partially quoted or truncated in the stored copies.
# - PrimeIntellect-ai/renderers issue #78 / PR #80 (draft tool calls inside <think>): repository not
#   available here; the in-think case is covered by vLLM's tng test instead.
# - langchain-ibm PR #121 (Granite python-dict / double-quoted argument strings): no verbatim outputs.
# - ai.google.dev/gemma/docs/meme-generator: same example as the gemma-cookbook notebook used above.
