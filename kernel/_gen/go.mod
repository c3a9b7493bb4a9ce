module github.com/astral-engine/astral/kernel/_gen

go 1.24
