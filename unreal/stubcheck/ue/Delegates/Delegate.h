// Stand-in for Unreal's dynamic multicast delegates: a class whose Broadcast
// takes the declared parameters. UHT-generated glue is out of scope (see
// uht_lint.py). Not Unreal code.
#pragma once

#include "CoreTypes.h"

class FMulticastScriptDelegate
{
public:
	bool IsBound() const;
	void Clear();
};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE(DelegateName) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
	public: \
		void Broadcast() const; \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(DelegateName, Param1Type, Param1Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
	public: \
		void Broadcast(Param1Type Param1Name) const; \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(DelegateName, Param1Type, Param1Name, Param2Type, Param2Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
	public: \
		void Broadcast(Param1Type Param1Name, Param2Type Param2Name) const; \
	};

#define DECLARE_DYNAMIC_MULTICAST_DELEGATE_ThreeParams(DelegateName, Param1Type, Param1Name, Param2Type, Param2Name, Param3Type, Param3Name) \
	class DelegateName : public FMulticastScriptDelegate \
	{ \
	public: \
		void Broadcast(Param1Type Param1Name, Param2Type Param2Name, Param3Type Param3Name) const; \
	};
