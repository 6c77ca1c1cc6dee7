module orilab

go 1.26
