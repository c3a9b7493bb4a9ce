// Stand-in for Unreal's callable wrappers: TFunction (copyable), TUniqueFunction
// (move-only callables allowed), TFunctionRef (non-owning). Not Unreal code.
#pragma once

#include "CoreTypes.h"

template <typename FuncType>
class TFunction;
template <typename FuncType>
class TUniqueFunction;
template <typename FuncType>
class TFunctionRef;

template <typename Ret, typename... ParamTypes>
class TFunction<Ret(ParamTypes...)>
{
public:
	TFunction(TYPE_OF_NULLPTR = nullptr);
	template <typename FunctorType,
		typename = std::enable_if_t<!std::is_same_v<std::decay_t<FunctorType>, TFunction> && std::is_invocable_r_v<Ret, std::decay_t<FunctorType>&, ParamTypes...>>>
	TFunction(FunctorType&& InFunc)
	{
		static_assert(std::is_copy_constructible_v<std::decay_t<FunctorType>>, "TFunction needs a copyable callable; use TUniqueFunction");
		(void)InFunc;
	}
	TFunction(const TFunction&);
	TFunction(TFunction&&);
	~TFunction();
	Ret operator()(ParamTypes... Params) const;
	explicit operator bool() const;
};

template <typename Ret, typename... ParamTypes>
class TUniqueFunction<Ret(ParamTypes...)>
{
public:
	TUniqueFunction(TYPE_OF_NULLPTR = nullptr);
	template <typename FunctorType,
		typename = std::enable_if_t<!std::is_same_v<std::decay_t<FunctorType>, TUniqueFunction> && std::is_invocable_r_v<Ret, std::decay_t<FunctorType>&, ParamTypes...>>>
	TUniqueFunction(FunctorType&& InFunc)
	{
		static_assert(std::is_constructible_v<std::decay_t<FunctorType>, FunctorType&&>, "TUniqueFunction must be able to take the callable");
		(void)InFunc;
	}
	TUniqueFunction(TUniqueFunction&&);
	TUniqueFunction(const TUniqueFunction&) = delete;
	TUniqueFunction& operator=(TUniqueFunction&&);
	TUniqueFunction& operator=(const TUniqueFunction&) = delete;
	~TUniqueFunction();
	Ret operator()(ParamTypes... Params) const;
	explicit operator bool() const;
};

template <typename Ret, typename... ParamTypes>
class TFunctionRef<Ret(ParamTypes...)>
{
public:
	template <typename FunctorType,
		typename = std::enable_if_t<!std::is_same_v<std::decay_t<FunctorType>, TFunctionRef> && std::is_invocable_r_v<Ret, std::decay_t<FunctorType>&, ParamTypes...>>>
	TFunctionRef(FunctorType&& InFunc)
	{
		(void)InFunc;
	}
	TFunctionRef(const TFunctionRef&);
	Ret operator()(ParamTypes... Params) const;
};
