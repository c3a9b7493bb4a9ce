// Stand-in for Unreal's callable wrappers: TFunction (copyable), TUniqueFunction
// (move-only callables allowed), TFunctionRef (non-owning), with Unreal's
// construction rules, type-erased so the async harness can call them. Not
// Unreal code.
#pragma once

#include "CoreTypes.h"

#include <memory>

template <typename FuncType>
class TFunction;
template <typename FuncType>
class TUniqueFunction;
template <typename FuncType>
class TFunctionRef;

namespace UEStub
{
	template <typename Ret, typename... ParamTypes>
	struct ICallable
	{
		virtual ~ICallable() {}
		virtual Ret Call(ParamTypes... Params) = 0;
		virtual ICallable* Clone() const = 0;
	};

	template <typename FunctorType, typename Ret, typename... ParamTypes>
	struct TCallable final : ICallable<Ret, ParamTypes...>
	{
		explicit TCallable(FunctorType&& InFunc) : Func(std::move(InFunc)) {}
		explicit TCallable(const FunctorType& InFunc) : Func(InFunc) {}
		Ret Call(ParamTypes... Params) override { return static_cast<Ret>(Func(std::forward<ParamTypes>(Params)...)); }
		ICallable<Ret, ParamTypes...>* Clone() const override
		{
			if constexpr (std::is_copy_constructible_v<FunctorType>)
			{
				return new TCallable(Func);
			}
			else
			{
				check(false); // TUniqueFunction is never copied
				return nullptr;
			}
		}
		FunctorType Func;
	};
}

template <typename Ret, typename... ParamTypes>
class TFunction<Ret(ParamTypes...)>
{
public:
	TFunction(TYPE_OF_NULLPTR = nullptr) {}
	template <typename FunctorType,
		typename = std::enable_if_t<!std::is_same_v<std::decay_t<FunctorType>, TFunction> && std::is_invocable_r_v<Ret, std::decay_t<FunctorType>&, ParamTypes...>>>
	TFunction(FunctorType&& InFunc)
	{
		static_assert(std::is_copy_constructible_v<std::decay_t<FunctorType>>, "TFunction needs a copyable callable; use TUniqueFunction");
		Impl.reset(new UEStub::TCallable<std::decay_t<FunctorType>, Ret, ParamTypes...>(Forward<FunctorType>(InFunc)));
	}
	TFunction(const TFunction& Other) : Impl(Other.Impl ? Other.Impl->Clone() : nullptr) {}
	TFunction(TFunction&&) = default;
	~TFunction() = default;
	Ret operator()(ParamTypes... Params) const
	{
		check(Impl != nullptr);
		return Impl->Call(std::forward<ParamTypes>(Params)...);
	}
	explicit operator bool() const { return Impl != nullptr; }

private:
	std::unique_ptr<UEStub::ICallable<Ret, ParamTypes...>> Impl;
};

template <typename Ret, typename... ParamTypes>
class TUniqueFunction<Ret(ParamTypes...)>
{
public:
	TUniqueFunction(TYPE_OF_NULLPTR = nullptr) {}
	template <typename FunctorType,
		typename = std::enable_if_t<!std::is_same_v<std::decay_t<FunctorType>, TUniqueFunction> && std::is_invocable_r_v<Ret, std::decay_t<FunctorType>&, ParamTypes...>>>
	TUniqueFunction(FunctorType&& InFunc)
	{
		static_assert(std::is_constructible_v<std::decay_t<FunctorType>, FunctorType&&>, "TUniqueFunction must be able to take the callable");
		Impl.reset(new UEStub::TCallable<std::decay_t<FunctorType>, Ret, ParamTypes...>(Forward<FunctorType>(InFunc)));
	}
	TUniqueFunction(TUniqueFunction&&) = default;
	TUniqueFunction(const TUniqueFunction&) = delete;
	TUniqueFunction& operator=(TUniqueFunction&&) = default;
	TUniqueFunction& operator=(const TUniqueFunction&) = delete;
	~TUniqueFunction() = default;
	Ret operator()(ParamTypes... Params) const
	{
		check(Impl != nullptr);
		return Impl->Call(std::forward<ParamTypes>(Params)...);
	}
	explicit operator bool() const { return Impl != nullptr; }

private:
	std::unique_ptr<UEStub::ICallable<Ret, ParamTypes...>> Impl;
};

template <typename Ret, typename... ParamTypes>
class TFunctionRef<Ret(ParamTypes...)>
{
public:
	template <typename FunctorType,
		typename = std::enable_if_t<!std::is_same_v<std::decay_t<FunctorType>, TFunctionRef> && std::is_invocable_r_v<Ret, std::decay_t<FunctorType>&, ParamTypes...>>>
	TFunctionRef(FunctorType&& InFunc)
		: Object(const_cast<void*>(static_cast<const void*>(std::addressof(InFunc))))
		, Thunk([](void* Obj, ParamTypes... Params) -> Ret
		{
			return static_cast<Ret>((*static_cast<std::remove_reference_t<FunctorType>*>(Obj))(std::forward<ParamTypes>(Params)...));
		})
	{
	}
	TFunctionRef(const TFunctionRef&) = default;
	Ret operator()(ParamTypes... Params) const { return Thunk(Object, std::forward<ParamTypes>(Params)...); }

private:
	void* Object;
	Ret (*Thunk)(void*, ParamTypes...);
};
