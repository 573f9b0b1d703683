module github.com/kesoku/kesoku/bench/limit

go 1.26.0
