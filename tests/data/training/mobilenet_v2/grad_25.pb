Bfeatures.3.conv.3.weightJ 	0;H
»V=ikx=lL=0½2È=©ù½