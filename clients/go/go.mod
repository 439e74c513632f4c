module speechgateway

go 1.19
