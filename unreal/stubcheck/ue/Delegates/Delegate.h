// Stand-in for Unreal's dynamic multicast delegates: a class whose Broadcast
// takes the declared parameters and calls what the async harness bound with
// AddStubHandler (Blueprint's bindings, AddDynamic and the UHT glue, are out
// of scope: see uht_lint.py). Not Unreal code.
#pragma once

#include "CoreTypes.h"

#include <functional>
#include <vector>

class FMulticastScriptDelegate
{
};

#define UE_STUB_DELEGATE_BODY(Params, Args) \
	public: \
		void Broadcast Params const \
		{ \
			for (const std::function<void Params>& Handler : StubHandlers) \
			{ \
				Handler Args; \
			} \
		} \
		void AddStubHandler(std::function<void Params> Handler) { StubHandlers.push_back(std::move(Handler)); } \
		bool IsBound() const { return !StubHandlers.empty(); } \
		void Clear() { StubHandlers.clear(); } \
	private: \
		std::vector<std::function<void Params>> StubHandlers;

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE(DelegateName) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
		UE_STUB_DELEGATE_BODY((), ()) \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(DelegateName, Param1Type, Param1Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
		UE_STUB_DELEGATE_BODY((Param1Type Param1Name), (Param1Name)) \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(DelegateName, Param1Type, Param1Name, Param2Type, Param2Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
		UE_STUB_DELEGATE_BODY((Param1Type Param1Name, Param2Type Param2Name), (Param1Name, Param2Name)) \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_ThreeParams(DelegateName, Param1Type, Param1Name, Param2Type, Param2Name, Param3Type, Param3Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
		UE_STUB_DELEGATE_BODY((Param1Type Param1Name, Param2Type Param2Name, Param3Type Param3Name), (Param1Name, Param2Name, Param3Name)) \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_FourParams(DelegateName, Param1Type, Param1Name, Param2Type, Param2Name, Param3Type, Param3Name, Param4Type, Param4Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
		UE_STUB_DELEGATE_BODY((Param1Type Param1Name, Param2Type Param2Name, Param3Type Param3Name, Param4Type Param4Name), \
			(Param1Name, Param2Name, Param3Name, Param4Name)) \
	};
