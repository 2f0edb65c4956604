module github.com/keypanel/keypanel/sdk/go

go 1.19
